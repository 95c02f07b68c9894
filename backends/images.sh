#!/usr/bin/env bash
# Build the docker backend's control-plane images of one supported release (default: the pinned
# one) from the binaries of `backends/build.sh [--release vX.Y.Z]`, for a Docker engine that
# cannot pull registry.k8s.io (an offline CI runner, this project's CI):
#
#   kschedconf.local/etcd:<kubeadm's etcd tag of vX.Y.Z> backends/bin/vX.Y.Z/etcd
#   kschedconf.local/kube-apiserver:vX.Y.Z                  backends/bin/vX.Y.Z/kube-apiserver
#   kschedconf.local/kube-scheduler:vX.Y.Z                  backends/bin/vX.Y.Z/kube-scheduler
#
# (the pinned release's binaries are also taken from backends/bin/ itself, their place before
# per-release builds)
# Each image is the static binary on an empty base (FROM scratch) in /usr/local/bin, named and
# tagged as registry.k8s.io names the release's images; the docker backend uses them with
#   KSCHEDCONF_IMAGE_REPOSITORY=kschedconf.local kschedconf run --subject docker ...
# The same source as the release images, not the same bytes: they are built from the release's
# module here, and lack the release images' /go-runner (the backend never uses it: it replaces
# the ENTRYPOINT as kubeadm does).
#
#   backends/images.sh [--release vX.Y.Z]          build the three images (after
#                                                  backends/build.sh [--release vX.Y.Z])
#   backends/images.sh --print [--release vX.Y.Z]  print the image names and exit
#
# Needs the docker CLI and a running engine. KSCHEDCONF_BACKENDS_BIN overrides the binaries'
# directory; KSCHEDCONF_IMAGE_REPOSITORY the repository (default kschedconf.local).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
registry="${KSCHEDCONF_IMAGE_REPOSITORY:-kschedconf.local}"

die() { echo "backends/images.sh: error: $*" >&2; exit 1; }

print=""
release=""
while [ $# -gt 0 ]; do
  case "$1" in
    --print) print=1 ;;
    --release) release="${2:?--release needs a release, e.g. v1.34.4}"; shift ;;
    --release=*) release="${1#--release=}" ;;
    *) die "unknown argument '$1' (usage: images.sh [--print] [--release vX.Y.Z])" ;;
  esac
  shift
done

# The release (default the pinned one), the image names and where the binaries are come from
# the launchers themselves, so they cannot drift from what they run.
names="$(cd "$repo" && KSCHEDCONF_IMAGE_REPOSITORY="$registry" python3 -c '
import sys
from conformance.backends.docker_launcher import default_images
from conformance.backends.process import binary_dirs
from reference_impl.releases import supported_releases
from reference_impl.releases.pinned import UPSTREAM_RELEASE
release = sys.argv[1] or UPSTREAM_RELEASE
if release not in supported_releases():
    sys.exit(f"{release} is not a supported release (supported: {chr(32).join(supported_releases())})")
print("release", release)
print("dirs", *binary_dirs(None, release))
for component, image in default_images(release=release).items():
    print(component, image)
' "$release")" || die "cannot read the images of '${release:-the pinned release}' from conformance/backends/docker_launcher.py"
release="$(sed -n 's/^release //p' <<<"$names")"
read -r -a dirs <<<"$(sed -n 's/^dirs //p' <<<"$names")"
names="$(grep -v '^release \|^dirs ' <<<"$names")"

if [ -n "$print" ]; then
  echo "$names" | awk '{print $2}'
  exit 0
fi

command -v docker >/dev/null 2>&1 || die "the docker CLI is not installed"
docker info >/dev/null 2>&1 || die "no Docker engine reachable (start dockerd or set DOCKER_HOST)"

ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
flag=""
[ "$release" = "$(cd "$repo" && python3 -c 'from reference_impl.releases.pinned import UPSTREAM_RELEASE as r; print(r)')" ] || flag=" --release $release"
while read -r component image; do
  binary=""
  for d in "${dirs[@]}"; do
    [ -x "$d/$component" ] && { binary="$d/$component"; break; }
  done
  [ -n "$binary" ] || die "$component of $release not found in ${dirs[*]}: run backends/build.sh$flag first"
  rm -rf "${ctx:?}"/*
  cp "$binary" "$ctx/$component"
  mkdir -p "$ctx/tmp"
  cat > "$ctx/Dockerfile" <<EOF
FROM scratch
COPY $component /usr/local/bin/$component
COPY tmp /tmp
ENV PATH=/usr/local/bin
LABEL io.kschedconf.built-from="backends/build.sh$flag" io.kschedconf.component="$component" io.kschedconf.release="$release"
ENTRYPOINT ["/usr/local/bin/$component"]
EOF
  t0=$(date +%s)
  docker build --quiet --tag "$image" "$ctx" >"$ctx.log" 2>&1 \
    || { cat "$ctx.log" >&2; rm -f "$ctx.log"; die "docker build of $image failed"; }
  rm -f "$ctx.log"
  echo "backends/images.sh: built $image in $(( $(date +%s) - t0 ))s"
done <<< "$names"
