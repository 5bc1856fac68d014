#!/usr/bin/env bash
# Install memctl for the GitHub Action (action.yml): the release archive for this
# runner (checked against its .sha256), else `cargo install --locked`.
#   MEMCTL_VERSION  a release tag (v0.1.0) or `latest` (default)
#   MEMCTL_REPO     owner/name of the repository that publishes the releases
#                   (default: the Action's own, from GITHUB_ACTION_PATH
#                   `…/_actions/<owner>/<name>/<ref>`; none: build with cargo)
#   MEMCTL_DOWNLOAD_BASE  where the archives are instead (a mirror; any URL curl
#                   reads, file:// too)
#   RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP, GITHUB_PATH: set by GitHub Actions
# Prints where memctl is; puts its directory on GITHUB_PATH.
set -euo pipefail

version=${MEMCTL_VERSION:-latest}
repo=${MEMCTL_REPO:-}
if [ -z "$repo" ] && [[ "${GITHUB_ACTION_PATH:-}" =~ /_actions/([^/]+)/([^/]+)/[^/]+/?$ ]]; then
  repo="${BASH_REMATCH[1]}/${BASH_REMATCH[2]}"
fi
dest=${RUNNER_TEMP:-/tmp}/memctl-bin
mkdir -p "$dest"

case "${RUNNER_OS:-$(uname -s)}/${RUNNER_ARCH:-$(uname -m)}" in
  Linux/X64|Linux/x86_64) target=x86_64-unknown-linux-musl ext=tar.gz ;;
  Linux/ARM64|Linux/aarch64) target=aarch64-unknown-linux-musl ext=tar.gz ;;
  macOS/ARM64|Darwin/arm64) target=aarch64-apple-darwin ext=tar.gz ;;
  macOS/X64|Darwin/x86_64) target=x86_64-apple-darwin ext=tar.gz ;;
  Windows/X64) target=x86_64-pc-windows-msvc ext=zip ;;
  *) target='' ext='' ;;
esac

from_release() {
  [ -n "$target" ] && { [ -n "$repo" ] || [ -n "${MEMCTL_DOWNLOAD_BASE:-}" ]; } || return 1
  local base asset
  if [ -n "${MEMCTL_DOWNLOAD_BASE:-}" ]; then
    base=$MEMCTL_DOWNLOAD_BASE
  elif [ "$version" = latest ]; then
    base="https://github.com/$repo/releases/latest/download"
  else
    base="https://github.com/$repo/releases/download/$version"
  fi
  asset="memctl-$target.$ext"
  curl -fsSL --retry 3 -o "$dest/$asset" "$base/$asset" || return 1
  curl -fsSL --retry 3 -o "$dest/$asset.sha256" "$base/$asset.sha256" || return 1
  # A download that does not match its checksum is an error, never a reason to
  # fall back to building.
  local sum=(sha256sum)
  command -v sha256sum >/dev/null 2>&1 || sum=(shasum -a 256)
  if ! (cd "$dest" && "${sum[@]}" -c "$asset.sha256" >&2); then
    echo "memctl-action: $asset does not match $asset.sha256; nothing installed" >&2
    rm -f "$dest/$asset"
    exit 2
  fi
  if [ "$ext" = zip ]; then
    (cd "$dest" && unzip -oq "$asset") || return 1
  else
    tar -xzf "$dest/$asset" -C "$dest" || return 1
  fi
  bin_dir="$dest/memctl-$target"
}

if from_release; then
  echo "memctl-action: installed the $version release for $target" >&2
else
  echo "memctl-action: no release archive for ${target:-this runner}; building with cargo install" >&2
  args=(install --locked --root "$dest" memctl)
  [ "$version" != latest ] && args+=(--version "${version#v}")
  cargo "${args[@]}" >&2
  bin_dir="$dest/bin"
fi
[ -n "${GITHUB_PATH:-}" ] && echo "$bin_dir" >> "$GITHUB_PATH"
echo "$bin_dir/memctl"
