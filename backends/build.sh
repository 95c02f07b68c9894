#!/usr/bin/env bash
# Build the control-plane binaries of the process backend (conformance/backends/process.py):
#   backends/bin/kube-apiserver, backends/bin/kube-scheduler  (k8s.io/kubernetes, the pinned release)
#   backends/bin/etcd                                         (go.etcd.io/etcd/server/v3, the version
#                                                              k8s.io/kubernetes itself requires)
# from the Go modules of the release pinned in reference_impl/releases/pinned.py (go.mod in this
# directory: `tool` directives, and the same staging `replace` lines as upstream/go.mod).
#
#   backends/build.sh          check go.mod against the pin, then build what is missing or stale
#   backends/build.sh --check  only check go.mod against the pin
#   backends/build.sh --sync   rewrite go.mod's k8s.io lines for the pin (after changing it), tidy, build
#   backends/build.sh --force  rebuild even when the binaries are up to date
#
# Needs Go (go.mod's go line) and the Go module proxy (or a filled module cache). Prints the time
# of each step. KSCHEDCONF_BACKENDS_BIN overrides the output directory.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
pinned="$repo/reference_impl/releases/pinned.py"
bin="${KSCHEDCONF_BACKENDS_BIN:-$here/bin}"
cd "$here"

die() { echo "backends/build.sh: error: $*" >&2; exit 1; }
now() { date +%s.%N; }
elapsed() { python3 -c "print(f'{$2 - $1:.1f}')" 2>/dev/null || echo "?"; }

command -v go >/dev/null 2>&1 || die "go is not installed (need Go $(sed -n 's/^go //p' go.mod) or newer)"
command -v python3 >/dev/null 2>&1 || die "python3 is needed to read $pinned"
[ -f "$pinned" ] || die "$pinned not found"

release="$(python3 - "$pinned" <<'PY'
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
for node in tree.body:
    if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "UPSTREAM_RELEASE" for t in node.targets):
        print(ast.literal_eval(node.value))
PY
)"
[[ "$release" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || die "cannot read UPSTREAM_RELEASE from $pinned (got '$release')"
staging="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"

export GOFLAGS="-mod=mod -buildvcs=false"

mode="${1:-}"
if [ "$mode" = "--sync" ]; then
  echo "backends/build.sh: syncing go.mod to k8s.io/kubernetes $release (staging $staging)"
  go mod edit -require="k8s.io/kubernetes@$release"
  go mod download "k8s.io/kubernetes@$release"
  kmod="$(go mod download -json "k8s.io/kubernetes@$release" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  for m in $(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9-]*\) => \.\/staging\/.*/\1/p' "$kmod"); do
    go mod edit -replace="$m=$m@$staging"
  done
  # etcd: the server version k8s.io/kubernetes requires (its go.mod lists it as indirect).
  etcd="$(sed -n 's/^[[:space:]]*go\.etcd\.io\/etcd\/server\/v3 \(v[^ ]*\).*/\1/p' "$kmod" | head -1)"
  [ -n "$etcd" ] || die "k8s.io/kubernetes $release's go.mod names no go.etcd.io/etcd/server/v3"
  go mod edit -require="go.etcd.io/etcd/server/v3@$etcd"
  go mod tidy
fi

# Check go.mod against the pin.
json="$(go mod edit -json)"
have="$(python3 -c 'import json,sys; m=json.load(sys.stdin); print(" ".join(r["Path"]+"@"+r["Version"] for r in m.get("Require") or [] if r["Path"]=="k8s.io/kubernetes"))' <<<"$json")"
[ "$have" = "k8s.io/kubernetes@$release" ] || die "go.mod requires '$have' but $pinned pins k8s.io/kubernetes $release; run backends/build.sh --sync"
bad="$(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9-]*\) => k8s\.io\/[a-z0-9-]* \(v[^ ]*\)$/\1 \2/p' go.mod | awk -v v="$staging" '$2 != v {print $1" "$2}')"
[ -z "$bad" ] || die "go.mod replaces staging modules at versions other than $staging (pin $release):
$bad
run backends/build.sh --sync"
nrep="$(grep -c '=> k8s.io/' go.mod || true)"
[ "$nrep" -ge 30 ] || die "go.mod has only $nrep staging replace directives; run backends/build.sh --sync"
etcd="$(python3 -c 'import json,sys; m=json.load(sys.stdin); print(" ".join(r["Version"] for r in m.get("Require") or [] if r["Path"]=="go.etcd.io/etcd/server/v3"))' <<<"$json")"
[ -n "$etcd" ] || die "go.mod does not require go.etcd.io/etcd/server/v3; run backends/build.sh --sync"

[ "$mode" = "--check" ] && { echo "backends/build.sh: go.mod matches the pin $release (etcd $etcd)"; exit 0; }

mkdir -p "$bin"
# A stamp of what the binaries were built from: go.mod, go.sum and the Go version.
stamp="$( (cat go.mod go.sum; go version) | sha256sum | cut -c1-16)"
if [ "$mode" != "--force" ] && [ -f "$bin/.stamp" ] && [ "$(cat "$bin/.stamp")" = "$stamp" ] \
   && [ -x "$bin/kube-apiserver" ] && [ -x "$bin/kube-scheduler" ] && [ -x "$bin/etcd" ]; then
  echo "backends/build.sh: $bin is up to date (k8s.io/kubernetes $release, etcd $etcd)"
  exit 0
fi
rm -f "$bin/.stamp"

ldflags="-s -w"
# What `kube-apiserver --version` / `kube-scheduler --version` print (the release's own
# `hack/lib/version.sh` sets these when building from a git checkout).
ver="k8s.io/component-base/version"
ldflags+=" -X $ver.gitVersion=$release -X $ver.gitMajor=1 -X $ver.gitMinor=${BASH_REMATCH[1]}"
ldflags+=" -X $ver.gitTreeState=clean -X $ver.buildDate=1970-01-01T00:00:00Z"
ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=$release"

total0=$(now)
build() {  # build NAME PACKAGE
  local t0; t0=$(now)
  CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$bin/$1" "$2"
  echo "backends/build.sh: built $1 in $(elapsed "$t0" "$(now)")s"
}
build kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler
build etcd go.etcd.io/etcd/server/v3

got="$("$bin/kube-scheduler" --version 2>/dev/null | awk '{print $2}')"
[ "$got" = "$release" ] || die "kube-scheduler --version says '$got', not the pin $release"
got="$("$bin/kube-apiserver" --version 2>/dev/null | awk '{print $2}')"
[ "$got" = "$release" ] || die "kube-apiserver --version says '$got', not the pin $release"
"$bin/etcd" --version >/dev/null 2>&1 || die "$bin/etcd --version failed"
echo "$stamp" > "$bin/.stamp"
echo "backends/build.sh: built $bin/{kube-apiserver,kube-scheduler,etcd} (k8s.io/kubernetes $release, etcd $etcd) in $(elapsed "$total0" "$(now)")s"
