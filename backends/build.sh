#!/usr/bin/env bash
# Build the control-plane binaries of the process backend (conformance/backends/process.py) for
# one supported release (reference_impl/releases/vX_Y_Z.py), by default the one pinned in
# reference_impl/releases/pinned.py:
#   backends/bin/vX.Y.Z/kube-apiserver, kube-scheduler, kube-controller-manager
#                                                      (k8s.io/kubernetes vX.Y.Z)
#   backends/bin/vX.Y.Z/etcd                           (go.etcd.io/etcd/server/v3 at the version
#                                                       k8s.io/kubernetes vX.Y.Z itself requires)
# The pinned release's binaries are also in backends/bin/ itself (hard links), as before.
#
# The pinned release's module is go.mod in this directory (`tool` directives, the same staging
# `replace` lines as upstream/go.mod); another release's is releases/vX.Y.Z/go.mod, generated
# from releases/go.mod.tmpl by --sync (upstream/release-mod.sh, as upstream/build.sh does) and
# used with go build -modfile.
#
#   backends/build.sh [--release vX.Y.Z]          check the module file, then build what is
#                                                 missing or stale
#   backends/build.sh --check [--release vX.Y.Z]  only check the module file against the release
#   backends/build.sh --sync [--release vX.Y.Z]   rewrite the module file for the release (after
#                                                 changing the pin, or for a new release), tidy,
#                                                 build
#   backends/build.sh --force [--release vX.Y.Z]  rebuild even when the binaries are up to date
#   backends/build.sh --sync --check [--release vX.Y.Z]  rewrite and check, build nothing
#
# Needs Go (go.mod's go line) and the Go module proxy (or a filled module cache). Prints the time
# of each step. KSCHEDCONF_BACKENDS_BIN overrides the output directory (bin/ above).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
pinned_file="$repo/reference_impl/releases/pinned.py"
top="${KSCHEDCONF_BACKENDS_BIN:-$here/bin}"
cd "$here"
# shellcheck source=upstream/release-mod.sh
. "$repo/upstream/release-mod.sh"
# shellcheck source=upstream/release-args.sh
. "$repo/upstream/release-args.sh"

die() { echo "backends/build.sh: error: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.1f}')" 2>/dev/null || echo "?"; }

mode=build
sync=""
release=""
while [ $# -gt 0 ]; do
  if release_arg "$@"; then shift "$release_shift"; continue; fi
  case "$1" in
    --check|--force) mode="${1#--}" ;;
    --sync) sync=1 ;;
    *) die "unknown argument '$1' (usage: build.sh [--check|--sync|--force] [--release vX.Y.Z])" ;;
  esac
  shift
done

command -v go >/dev/null 2>&1 || die "go is not installed (need Go $(sed -n 's/^go //p' go.mod) or newer)"
command -v python3 >/dev/null 2>&1 || die "python3 is needed to read $pinned_file"
[ -f "$pinned_file" ] || die "$pinned_file not found"

# The pin, and the release asked for checked against it (upstream/release-args.sh).
resolve_release "$repo"

if [ "$release" = "$pinned" ]; then
  modfile="go.mod"
  sync_cmd="backends/build.sh --sync"
else
  modfile="releases/$release/go.mod"
  sync_cmd="backends/build.sh --sync --release $release"
fi
bin="$top/$release"

export GOFLAGS="-mod=mod -buildvcs=false"
modflag=()
[ "$modfile" = "go.mod" ] || modflag=(-modfile="$modfile")

# The etcd server version k8s.io/kubernetes $release requires (its go.mod lists it as indirect).
kubernetes_etcd() {
  local kmod
  kmod="$(go mod download -json "k8s.io/kubernetes@$release" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  sed -n 's/^[[:space:]]*go\.etcd\.io\/etcd\/server\/v3 \(v[^ ]*\).*/\1/p' "$kmod" | head -1
}

if [ -n "$sync" ]; then
  echo "backends/build.sh: writing $modfile for k8s.io/kubernetes $release (staging $staging)"
  if [ "$modfile" = "go.mod" ]; then
    go mod edit -require="k8s.io/kubernetes@$release"
    go mod download "k8s.io/kubernetes@$release"
    kmod="$(go mod download -json "k8s.io/kubernetes@$release" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
    for m in $(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9-]*\) => \.\/staging\/.*/\1/p' "$kmod"); do
      go mod edit -replace="$m=$m@$staging"
    done
  else
    mkdir -p "$(dirname "$modfile")"
    sed "s/@RELEASE@/$release/g" releases/go.mod.tmpl > "$modfile"
    rm -f "${modfile%.mod}.sum"
    require_release "$release" "$modfile" || die "cannot require k8s.io/kubernetes $release"
  fi
  etcd="$(kubernetes_etcd)"
  [ -n "$etcd" ] || die "k8s.io/kubernetes $release's go.mod names no go.etcd.io/etcd/server/v3"
  go mod edit -require="go.etcd.io/etcd/server/v3@$etcd" "$modfile"
  go mod tidy "${modflag[@]}"
fi

# Check the module file against the release: loud failure on any mismatch.
[ -f "$modfile" ] || die "$modfile not found; run $sync_cmd"
json="$(go mod edit -json "$modfile")"
have="$(python3 -c 'import json,sys; m=json.load(sys.stdin); print(" ".join(r["Path"]+"@"+r["Version"] for r in m.get("Require") or [] if r["Path"]=="k8s.io/kubernetes"))' <<<"$json")"
[ "$have" = "k8s.io/kubernetes@$release" ] || die "$modfile requires '$have', not k8s.io/kubernetes $release; run $sync_cmd"
bad="$(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9-]*\) => k8s\.io\/[a-z0-9-]* \(v[^ ]*\)$/\1 \2/p' "$modfile" | awk -v v="$staging" '$2 != v {print $1" "$2}')"
[ -z "$bad" ] || die "$modfile replaces staging modules at versions other than $staging (release $release):
$bad
run $sync_cmd"
nrep="$(grep -c '=> k8s.io/' "$modfile" || true)"
[ "$nrep" -ge 30 ] || die "$modfile has only $nrep staging replace directives; run $sync_cmd"
etcd="$(python3 -c 'import json,sys; m=json.load(sys.stdin); print(" ".join(r["Version"] for r in m.get("Require") or [] if r["Path"]=="go.etcd.io/etcd/server/v3"))' <<<"$json")"
[ -n "$etcd" ] || die "$modfile does not require go.etcd.io/etcd/server/v3; run $sync_cmd"
tools="$(python3 -c 'import json,sys; m=json.load(sys.stdin); print(" ".join(sorted(t["Path"] for t in m.get("Tool") or [])))' <<<"$json")"
[ "$tools" = "go.etcd.io/etcd/server/v3 k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler" ] ||
  die "$modfile's tool directives are '$tools'; run $sync_cmd"

[ "$mode" = "check" ] && { echo "backends/build.sh: $modfile matches $release (etcd $etcd)"; exit 0; }

# The pinned release's binaries are also in $top itself (the layout before per-release builds).
link_pinned() {
  [ "$release" = "$pinned" ] || return 0
  local name
  for name in kube-apiserver kube-scheduler kube-controller-manager etcd; do
    ln -f "$bin/$name" "$top/$name" 2>/dev/null || cp -f "$bin/$name" "$top/$name"
  done
  cp -f "$bin/.stamp" "$top/.stamp"
}

mkdir -p "$bin"
# A stamp of what the binaries were built from: the module file, its go.sum and the Go version.
stamp="$( (cat "$modfile" "${modfile%.mod}.sum"; go version) | sha256sum | cut -c1-16)"
if [ "$mode" != "force" ] && [ -f "$bin/.stamp" ] && [ "$(cat "$bin/.stamp")" = "$stamp" ] \
   && [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kube-scheduler" ] \
   && [ -x "$bin/kube-controller-manager" ] && [ -x "$bin/etcd" ]; then
  link_pinned
  echo "backends/build.sh: $bin is up to date (k8s.io/kubernetes $release, etcd $etcd)"
  exit 0
fi
rm -f "$bin/.stamp"
[ "$release" != "$pinned" ] || rm -f "$top/.stamp"

ldflags="-s -w"
# What `kube-apiserver --version` / `kube-scheduler --version` print (the release's own
# `hack/lib/version.sh` sets these when building from a git checkout).
ver="k8s.io/component-base/version"
ldflags+=" -X $ver.gitVersion=$release -X $ver.gitMajor=1 -X $ver.gitMinor=$minor"
ldflags+=" -X $ver.gitTreeState=clean -X $ver.buildDate=1970-01-01T00:00:00Z"
ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=$release"

total0=$(now)
build() {  # build NAME PACKAGE
  local t0; t0=$(now)
  CGO_ENABLED=0 go build "${modflag[@]}" -trimpath -ldflags "$ldflags" -o "$bin/$1" "$2"
  echo "backends/build.sh: built $1 in $(elapsed "$t0" "$(now)")s"
}
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler
build kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
build etcd go.etcd.io/etcd/server/v3

got="$("$bin/kube-scheduler" --version 2>/dev/null | awk '{print $2}')"
[ "$got" = "$release" ] || die "kube-scheduler --version says '$got', not $release"
for name in kube-apiserver kube-controller-manager; do
  got="$("$bin/$name" --version 2>/dev/null | awk '{print $2}')"
  [ "$got" = "$release" ] || die "$name --version says '$got', not $release"
done
# etcd prints "etcd Version: 3.6.4" (server/etcdmain/config.go)
got="$("$bin/etcd" --version 2>&1 || true)"
[[ "$got" == *"Version: ${etcd#v}"* ]] || die "$bin/etcd --version does not say ${etcd#v}: ${got%%$'\n'*}"
echo "$stamp" > "$bin/.stamp"
link_pinned
echo "backends/build.sh: built $bin/{kube-apiserver,kube-scheduler,kube-controller-manager,etcd} (k8s.io/kubernetes $release, etcd $etcd) in $(elapsed "$total0" "$(now)")s"
