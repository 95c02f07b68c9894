#!/usr/bin/env bash
# A Docker engine for the docker backend's tests in CI, on a machine that has none running:
#   .ci/docker-engine.sh start   install Debian's docker.io if dockerd is missing, start dockerd
#                                unless an engine already answers, wait until it does
#   .ci/docker-engine.sh stop    stop the dockerd this script started (and nothing else)
# Never fails the run: without an engine the tests that need one skip, and .ci/run says so.
set -uo pipefail
state="${TMPDIR:-/tmp}/kschedconf-ci-dockerd"

case "${1:-}" in
  start)
    if docker info >/dev/null 2>&1; then
      rm -f "$state.started"  # not ours: stop leaves it alone
      echo "docker-engine: an engine is already running"; exit 0
    fi
    if ! command -v dockerd >/dev/null 2>&1; then
      echo "docker-engine: installing docker.io (Debian)"
      t0=$(date +%s)
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
          --no-install-recommends docker.io iptables; } >"$state.apt.log" 2>&1 \
        || { tail -20 "$state.apt.log" >&2; echo "docker-engine: install failed" >&2; exit 0; }
      echo "docker-engine: installed in $(( $(date +%s) - t0 ))s"
    fi
    mkdir -p "$state"
    dockerd --data-root "$state/data" --exec-root "$state/exec" \
        --pidfile "$state/dockerd.pid" >"$state/dockerd.log" 2>&1 &
    touch "$state.started"
    for _ in $(seq 1 60); do
      if docker info >/dev/null 2>&1; then
        echo "docker-engine: dockerd $(docker version --format '{{.Server.Version}}') is up"
        exit 0
      fi
      sleep 1
    done
    echo "docker-engine: dockerd did not answer within 60 s; its log:" >&2
    tail -20 "$state/dockerd.log" >&2
    ;;
  stop)
    if [ -f "$state.started" ] && [ -f "$state/dockerd.pid" ]; then
      rm -f "$state.started"
      pid="$(cat "$state/dockerd.pid")"
      kill "$pid" 2>/dev/null
      for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
      echo "docker-engine: dockerd stopped"
    fi
    ;;
  *)
    echo "usage: .ci/docker-engine.sh start|stop" >&2; exit 2 ;;
esac
exit 0
