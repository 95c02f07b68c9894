# Sourced by upstream/build.sh and backends/build.sh: the --release option and the release it
# names, checked against the pin (reference_impl/releases/pinned.py) and the supported releases
# (reference_impl/releases/vX_Y_Z.py). The caller defines die MESSAGE (prints and exits).
#
#   release_arg "$@"        when $1 is --release VALUE or --release=VALUE: sets release and
#                           release_shift (the arguments it took, 2 or 1) and returns 0; else 1
#   resolve_release REPO    reads the pin of REPO (python3 if present, else sed) and sets pinned,
#                           pinned_minor, release (the pin when unset), minor and staging
#                           (upstream/release-mod.sh staging_version); dies on a release that
#                           is not a tag, not supported, or newer than the pin

release_arg() {
  case "${1-}" in
    --release)
      [ -n "${2-}" ] || die "--release needs a release, e.g. v1.34.4"
      release="$2"; release_shift=2 ;;
    --release=*) release="${1#--release=}"; release_shift=1 ;;
    *) return 1 ;;
  esac
}

resolve_release() {
  local repo="$1" pinned_file="$1/reference_impl/releases/pinned.py" supported
  if command -v python3 >/dev/null 2>&1; then
    pinned="$(python3 - "$pinned_file" <<'PY'
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
for node in tree.body:
    if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "UPSTREAM_RELEASE" for t in node.targets):
        print(ast.literal_eval(node.value))
PY
)"
  else
    pinned="$(sed -n 's/^UPSTREAM_RELEASE *= *"\(v[0-9.]*\)".*/\1/p' "$pinned_file")"
  fi
  [[ "$pinned" =~ ^v1\.([0-9]+)\.[0-9]+$ ]] || die "cannot read UPSTREAM_RELEASE from $pinned_file (got '$pinned')"
  pinned_minor="${BASH_REMATCH[1]}"
  release="${release:-$pinned}"
  [[ "$release" =~ ^v1\.([0-9]+)\.[0-9]+$ ]] || die "not a release tag: '$release' (e.g. v1.34.4)"
  minor="${BASH_REMATCH[1]}"
  supported="$(cd "$repo/reference_impl/releases" && ls v1_*_*.py | sed 's/\.py$//; s/_/./g' | sort -V | paste -sd' ')"
  [ -f "$repo/reference_impl/releases/$(echo "$release" | tr . _).py" ] ||
    die "$release is not a supported release (supported: $supported)"
  [ "$minor" -le "$pinned_minor" ] || die "$release is newer than the pinned $pinned; move the pin instead"
  staging="$(staging_version "$release")"
}
