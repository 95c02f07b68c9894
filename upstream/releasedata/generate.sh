#!/usr/bin/env bash
# Read a release's scheduling defaults from the release itself and write its data module.
#
#   upstream/releasedata/generate.sh vX.Y.Z            write reference_impl/releases/vX_Y_Z.py
#   upstream/releasedata/generate.sh vX.Y.Z --json F   also keep the program's JSON document in F
#
# Builds main.go in a temporary module that requires k8s.io/kubernetes vX.Y.Z and replaces every
# staging module of that release (the replace directives of kubernetes' own go.mod) by its
# published v0.Y.Z, as upstream/build.sh does (both: upstream/release-mod.sh); upstream/go.mod is
# not touched. Then runs it (-src: the release's module directory, for the two unexported facts) and
# renders the JSON with render.py. Needs Go and the Go module proxy (or a filled module cache).
# Prints the build time. Review the data module's diff before committing it.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
die() { echo "releasedata/generate.sh: error: $*" >&2; exit 1; }
# shellcheck source=upstream/release-mod.sh
. "$here/../release-mod.sh"

release="${1:-}"
staging_version "$release" >/dev/null || die "usage: generate.sh vX.Y.Z [--json FILE] (got '$release')"
keep_json=""
if [ "${2:-}" = "--json" ]; then
  keep_json="${3:?--json needs a file}"
fi
command -v go >/dev/null 2>&1 || die "go is not installed"
command -v python3 >/dev/null 2>&1 || die "python3 is not installed"

export GOFLAGS="-mod=mod -buildvcs=false"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$here/main.go" "$here/go.mod" "$work/"
cd "$work"

info="$(go mod download -json "k8s.io/kubernetes@$release")"
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1]).get(sys.argv[2]) or "")' "$info" "$1"; }
[ -z "$(field Error)" ] || die "k8s.io/kubernetes@$release: $(field Error)"
src="$(field Dir)"
require_release "$release" || die "cannot require k8s.io/kubernetes $release"
go mod tidy

start=$(date +%s.%N)
go build -trimpath -o releasedata .
end=$(date +%s.%N)
printf 'releasedata/generate.sh: built against k8s.io/kubernetes %s in %.1fs\n' "$release" \
  "$(python3 -c "print($end - $start)")" >&2

./releasedata -src "$src" > data.json

# The gates the program found in pkg/scheduler's Go files, against a plain grep of the files that
# import k8s.io/kubernetes/pkg/features (as "features": other packages are named features too).
importers="$(grep -rlE --include='*.go' --exclude='*_test.go' '^\s*"k8s.io/kubernetes/pkg/features"' \
  "$src/pkg/scheduler" || true)"
grepped="$(echo "$importers" | xargs grep -hoE '\<features\.[A-Z][A-Za-z0-9]*' | sed 's/^features\.//' | sort -u)"
found="$(python3 -c 'import json,sys; print("\n".join(sorted(json.load(open(sys.argv[1]))["gatesReadBy"])))' data.json)"
[ "$grepped" = "$found" ] || die "the gates grep finds in pkg/scheduler differ from the program's:
$(diff <(echo "$grepped") <(echo "$found") || true)"
[ -z "$keep_json" ] || cp data.json "$keep_json"
out="$repo/reference_impl/releases/$(echo "$release" | tr . _).py"
published="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["Time"])' "$(field Info)")"
python3 "$here/render.py" data.json --sum "$(field Sum)" --time "$published" > "$out.tmp"
mv "$out.tmp" "$out"
echo "releasedata/generate.sh: wrote ${out#"$repo"/}" >&2
