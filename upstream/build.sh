#!/usr/bin/env bash
# Build the upstream subject: the real kube-scheduler of a release, linked as a Go module
# dependency. By default the release pinned in reference_impl/releases/pinned.py; --release names
# another supported one (a data module reference_impl/releases/vX_Y_Z.py exists).
#
#   upstream/build.sh [--release vX.Y.Z]          check the release's go.mod, then build
#                                                 bin/vX.Y.Z/kschedconf-upstream (the pinned
#                                                 release: also bin/kschedconf-upstream, and
#                                                 bin/kschedconf-celcost: upstream/celcost)
#   upstream/build.sh --check [--release vX.Y.Z]  only check the release's go.mod
#   upstream/build.sh --sync [--release vX.Y.Z]   regenerate the release's go.mod and go.sum from
#                                                 releases/go.mod.tmpl (after changing the pin or
#                                                 adding a release), tidy, build
#
# The pinned release's module is go.mod; another release's is releases/vX.Y.Z/go.mod (go build
# -modfile). The sources are shared; what the Go APIs of the releases differ in is in
# release_*.go, chosen by the build tags k8s_before_1_N (every minor N after the release's, up
# to the pinned one's). Needs Go (see go.mod's go line) and network access to the Go module proxy
# (or a filled module cache). Prints the build time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
pinned_file="$repo/reference_impl/releases/pinned.py"
cd "$here"
# shellcheck source=upstream/release-mod.sh
. "$here/release-mod.sh"
# shellcheck source=upstream/release-args.sh
. "$here/release-args.sh"

die() { echo "upstream/build.sh: error: $*" >&2; exit 1; }

mode=build
release=""
while [ $# -gt 0 ]; do
  if release_arg "$@"; then shift "$release_shift"; continue; fi
  case "$1" in
    --check|--sync) mode="${1#--}" ;;
    *) die "unknown argument '$1' (usage: build.sh [--check|--sync] [--release vX.Y.Z])" ;;
  esac
  shift
done

command -v go >/dev/null 2>&1 || die "go is not installed (need Go $(sed -n 's/^go //p' go.mod) or newer)"
[ -f "$pinned_file" ] || die "$pinned_file not found"

# The pin, and the release asked for checked against it (release-args.sh).
resolve_release "$repo"

# The release's module file, and the build tags that choose its release_*.go.
if [ "$release" = "$pinned" ]; then
  modfile="go.mod"
else
  modfile="releases/$release/go.mod"
fi
tags=""
for ((n = minor + 1; n <= pinned_minor; n++)); do
  tags="${tags:+$tags,}k8s_before_1_$n"
done

export GOFLAGS="-mod=mod -buildvcs=false"
modflag=()
[ "$modfile" = "go.mod" ] || modflag=(-modfile="$modfile")

if [ "$mode" = "sync" ]; then
  echo "upstream/build.sh: writing $modfile for k8s.io/kubernetes $release (staging $staging)"
  mkdir -p "$(dirname "$modfile")"
  sed "s/@RELEASE@/$release/g" releases/go.mod.tmpl > "$modfile"
  rm -f "${modfile%.mod}.sum"
  require_release "$release" "$modfile" || die "cannot require k8s.io/kubernetes $release"
  go mod tidy "${modflag[@]}"
fi

# Check the module file against the release: loud failure on any mismatch.
[ -f "$modfile" ] || die "$modfile not found; run upstream/build.sh --sync --release $release"
json="$(go mod edit -json "$modfile")"
have="$(python3 -c 'import json,sys; m=json.loads(sys.argv[1]); print(" ".join(r["Path"]+"@"+r["Version"] for r in m.get("Require") or [] if r["Path"]=="k8s.io/kubernetes"))' "$json" 2>/dev/null ||
  sed -n 's/^[[:space:]]*k8s.io\/kubernetes \(v[^ ]*\).*/k8s.io\/kubernetes@\1/p' "$modfile")"
[ "$have" = "k8s.io/kubernetes@$release" ] || die "$modfile requires '$have', not k8s.io/kubernetes $release; run upstream/build.sh --sync --release $release"
bad="$(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9-]*\) => k8s\.io\/[a-z0-9-]* \(v[^ ]*\)$/\1 \2/p' "$modfile" | awk -v v="$staging" '$2 != v {print $1" "$2}')"
[ -z "$bad" ] || die "$modfile replaces staging modules at versions other than $staging (release $release):
$bad
run upstream/build.sh --sync --release $release"
nrep="$(grep -c '=> k8s.io/' "$modfile" || true)"
[ "$nrep" -ge 20 ] || die "$modfile has only $nrep staging replace directives; run upstream/build.sh --sync --release $release"

[ "$mode" = "check" ] && { echo "upstream/build.sh: $modfile matches $release"; exit 0; }

start=$(date +%s.%N)
out="bin/$release/kschedconf-upstream"
mkdir -p "bin/$release"
go build "${modflag[@]}" -tags "$tags" -trimpath -ldflags "-s -w" -o "$out" .
end=$(date +%s.%N)
built="$("$out" version)"
[ "$built" = "$release" ] || die "the binary links k8s.io/kubernetes $built, not $release"
if [ "$release" = "$pinned" ]; then
  cp -f "$out" bin/kschedconf-upstream
  # The API server's CEL cost estimator of DRA selectors (tests/dra/test_dra_cel_cost.py).
  go build "${modflag[@]}" -trimpath -ldflags "-s -w" -o bin/kschedconf-celcost ./celcost
  out="$out, bin/kschedconf-upstream and bin/kschedconf-celcost"
fi
printf 'upstream/build.sh: built %s (k8s.io/kubernetes %s, tags "%s") in %.1fs\n' "$out" "$built" "$tags" \
  "$(echo "$end - $start" | bc 2>/dev/null || python3 -c "print($end-$start)")"
