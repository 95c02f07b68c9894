#!/usr/bin/env bash
# Build the upstream subject: upstream/bin/kschedconf-upstream, the real kube-scheduler of the
# release pinned in reference_impl/releases/pinned.py, linked as a Go module dependency.
#
#   upstream/build.sh          check go.mod against the pin, then build
#   upstream/build.sh --check  only check go.mod against the pin
#   upstream/build.sh --sync   rewrite go.mod's k8s.io lines for the pin (after changing it), tidy, build
#
# Needs Go (see go.mod's go line) and network access to the Go module proxy (or a filled module
# cache). Prints the build time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
pinned="$repo/reference_impl/releases/pinned.py"
cd "$here"

die() { echo "upstream/build.sh: error: $*" >&2; exit 1; }

command -v go >/dev/null 2>&1 || die "go is not installed (need Go $(sed -n 's/^go //p' go.mod) or newer)"
[ -f "$pinned" ] || die "$pinned not found"

# The pin: UPSTREAM_RELEASE = "vX.Y.Z" (python3 if present, else sed).
if command -v python3 >/dev/null 2>&1; then
  release="$(python3 - "$pinned" <<'PY'
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
for node in tree.body:
    if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "UPSTREAM_RELEASE" for t in node.targets):
        print(ast.literal_eval(node.value))
PY
)"
else
  release="$(sed -n 's/^UPSTREAM_RELEASE *= *"\(v[0-9.]*\)".*/\1/p' "$pinned")"
fi
[[ "$release" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || die "cannot read UPSTREAM_RELEASE from $pinned (got '$release')"
staging="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"   # k8s.io/kubernetes v1.Y.Z <-> staging modules v0.Y.Z

export GOFLAGS="-mod=mod -buildvcs=false"

if [ "${1:-}" = "--sync" ]; then
  echo "upstream/build.sh: syncing go.mod to k8s.io/kubernetes $release (staging $staging)"
  go mod edit -require="k8s.io/kubernetes@$release"
  # The staging modules are the replace directives of k8s.io/kubernetes' own go.mod.
  go mod download "k8s.io/kubernetes@$release"
  kmod="$(go mod download -json "k8s.io/kubernetes@$release" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  for m in $(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9-]*\) => \.\/staging\/.*/\1/p' "$kmod"); do
    go mod edit -replace="$m=$m@$staging"
  done
  go mod tidy
fi

# Check go.mod against the pin: loud failure on any mismatch.
have="$(go mod edit -json | python3 -c 'import json,sys; m=json.load(sys.stdin); print(" ".join(r["Path"]+"@"+r["Version"] for r in m.get("Require") or [] if r["Path"]=="k8s.io/kubernetes"))' 2>/dev/null || sed -n 's/^[[:space:]]*k8s.io\/kubernetes \(v[^ ]*\).*/k8s.io\/kubernetes@\1/p' go.mod)"
[ "$have" = "k8s.io/kubernetes@$release" ] || die "go.mod requires '$have' but $pinned pins k8s.io/kubernetes $release; run upstream/build.sh --sync"
bad="$(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9-]*\) => k8s\.io\/[a-z0-9-]* \(v[^ ]*\)$/\1 \2/p' go.mod | awk -v v="$staging" '$2 != v {print $1" "$2}')"
[ -z "$bad" ] || die "go.mod replaces staging modules at versions other than $staging (pin $release):
$bad
run upstream/build.sh --sync"
nrep="$(grep -c '=> k8s.io/' go.mod || true)"
[ "$nrep" -ge 30 ] || die "go.mod has only $nrep staging replace directives; run upstream/build.sh --sync"

[ "${1:-}" = "--check" ] && { echo "upstream/build.sh: go.mod matches the pin $release"; exit 0; }

start=$(date +%s.%N)
mkdir -p bin
go build -trimpath -ldflags "-s -w" -o bin/kschedconf-upstream .
end=$(date +%s.%N)
built="$(bin/kschedconf-upstream version)"
[ "$built" = "$release" ] || die "the binary links k8s.io/kubernetes $built, not the pin $release"
printf 'upstream/build.sh: built bin/kschedconf-upstream (k8s.io/kubernetes %s) in %.1fs\n' "$built" "$(echo "$end - $start" | bc 2>/dev/null || python3 -c "print($end-$start)")"
