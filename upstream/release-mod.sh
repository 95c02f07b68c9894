# Sourced by upstream/build.sh, backends/build.sh and upstream/releasedata/generate.sh: the Go module requirements
# that link one k8s.io/kubernetes release.
#
#   staging_version vX.Y.Z             prints v0.Y.Z (k8s.io/kubernetes v1.Y.Z <-> staging v0.Y.Z)
#   require_release vX.Y.Z [MODFILE]   makes MODFILE (default go.mod, without replace directives)
#                                      require k8s.io/kubernetes vX.Y.Z and replace every staging
#                                      module of that release (the replace directives of
#                                      kubernetes' own go.mod) by its published v0.Y.Z
# Needs Go and the Go module proxy (or a filled module cache).

staging_version() {
  [[ "$1" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]] || return 1
  echo "v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"
}

require_release() {
  local release="$1" modfile="${2:-go.mod}" staging kmod m n=0
  staging="$(staging_version "$release")" || { echo "not a release tag: '$release'" >&2; return 1; }
  kmod="$(go mod download -json "k8s.io/kubernetes@$release" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  [ -n "$kmod" ] || { echo "k8s.io/kubernetes@$release: not found on the module proxy" >&2; return 1; }
  ! grep -q '^replace' "$modfile" || { echo "$modfile already has replace directives" >&2; return 1; }
  go mod edit -require="k8s.io/kubernetes@$release" "$modfile"
  {
    echo
    echo "// The staging modules of k8s.io/kubernetes (its go.mod requires them at v0.0.0 and replaces"
    echo "// them with ./staging/...): each at the published version matching the release."
    echo "replace ("
    for m in $(sed -n 's/^[[:space:]]*\(k8s\.io\/[a-z0-9-]*\) => \.\/staging\/.*/\1/p' "$kmod"); do
      printf '\t%s => %s %s\n' "$m" "$m" "$staging"
      n=$((n + 1))
    done
    echo ")"
  } >> "$modfile"
  [ "$n" -ge 20 ] || { echo "k8s.io/kubernetes@$release's go.mod has only $n staging replace directives" >&2; return 1; }
  go mod edit -fmt "$modfile"
}
