"""``python -m golden.definitions [AREA/NAME...]``: list the definitions, or print the named
scenarios' YAML without decisions, the metadata as comments and only the objects as documents,
the input ``kschedconf simulate`` and ``explain`` read."""

from __future__ import annotations

import sys

from . import definitions


def main(argv: list[str]) -> int:
    defs = definitions()
    if not argv:
        for g in defs.values():
            print(f"{g.name:<50} {g.covers}")
        print(f"{len(defs)} definitions; `kschedconf golden record` records them from "
              f"upstream")
        return 0
    for name in argv:
        if name not in defs:
            print(f"no definition named {name!r}", file=sys.stderr)
            return 2
        sys.stdout.write(defs[name].scenario().to_yaml(info=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
