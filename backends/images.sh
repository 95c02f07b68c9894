#!/usr/bin/env bash
# Build the docker backend's control-plane images from the binaries of backends/build.sh, for a
# Docker engine that cannot pull registry.k8s.io (an offline CI runner, this project's CI):
#
#   kschedconf.local/etcd:<kubeadm's etcd tag>       backends/bin/etcd
#   kschedconf.local/kube-apiserver:<pinned release> backends/bin/kube-apiserver
#   kschedconf.local/kube-scheduler:<pinned release> backends/bin/kube-scheduler
#
# Each image is the static binary on an empty base (FROM scratch) in /usr/local/bin, named and
# tagged as registry.k8s.io names the release's images; the docker backend uses them with
#   KSCHEDCONF_IMAGE_REPOSITORY=kschedconf.local kschedconf run --subject docker ...
# The same source as the release images, not the same bytes: they are built from the pinned
# module here, and lack the release images' /go-runner (the backend never uses it: it replaces
# the ENTRYPOINT as kubeadm does).
#
#   backends/images.sh            build the three images (after backends/build.sh)
#   backends/images.sh --print    print the image names and exit
#
# Needs the docker CLI and a running engine. KSCHEDCONF_BACKENDS_BIN overrides the binaries'
# directory; KSCHEDCONF_IMAGE_REPOSITORY the repository (default kschedconf.local).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
bin="${KSCHEDCONF_BACKENDS_BIN:-$here/bin}"
registry="${KSCHEDCONF_IMAGE_REPOSITORY:-kschedconf.local}"

die() { echo "backends/images.sh: error: $*" >&2; exit 1; }

# The image names come from the launcher itself, so they cannot drift from what it runs.
names="$(cd "$repo" && KSCHEDCONF_IMAGE_REPOSITORY="$registry" python3 -c '
from conformance.backends.docker_launcher import default_images
for component, image in default_images().items():
    print(component, image)
')" || die "cannot read the image names from conformance/backends/docker_launcher.py"

if [ "${1:-}" = "--print" ]; then
  echo "$names" | awk '{print $2}'
  exit 0
fi

command -v docker >/dev/null 2>&1 || die "the docker CLI is not installed"
docker info >/dev/null 2>&1 || die "no Docker engine reachable (start dockerd or set DOCKER_HOST)"

ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
while read -r component image; do
  [ -x "$bin/$component" ] || die "$bin/$component not found: run backends/build.sh first"
  rm -rf "${ctx:?}"/*
  cp "$bin/$component" "$ctx/$component"
  mkdir -p "$ctx/tmp"
  cat > "$ctx/Dockerfile" <<EOF
FROM scratch
COPY $component /usr/local/bin/$component
COPY tmp /tmp
ENV PATH=/usr/local/bin
LABEL io.kschedconf.built-from="backends/build.sh" io.kschedconf.component="$component"
ENTRYPOINT ["/usr/local/bin/$component"]
EOF
  t0=$(date +%s)
  docker build --quiet --tag "$image" "$ctx" >"$ctx.log" 2>&1 \
    || { cat "$ctx.log" >&2; rm -f "$ctx.log"; die "docker build of $image failed"; }
  rm -f "$ctx.log"
  echo "backends/images.sh: built $image in $(( $(date +%s) - t0 ))s"
done <<< "$names"
