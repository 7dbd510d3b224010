#!/usr/bin/env bash
# Installs what xferbatch needs on a fresh Debian machine, only what is missing.
# Usage: scripts/setup.sh [--for-tests]
# Works as root (no sudo needed) and as a user with sudo.
set -euo pipefail

packages=(pkg-config libcurl4-openssl-dev libarchive-dev libsqlite3-dev)
if [[ "${1:-}" == "--for-tests" ]]; then
  # Real servers and readers the integration tests meet, and Python's jsonschema.
  packages+=(nginx-core vsftpd openssh-server openssh-client libarchive-tools zstd openssl)
fi

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The schema tests validate with Python's jsonschema: from PyPI when pip works, else Debian's.
if [[ "${1:-}" == "--for-tests" ]] && ! python3 -c 'import jsonschema' 2>/dev/null; then
  echo "setup: installing Python's jsonschema"
  python3 -m pip install -q jsonschema 2>/dev/null \
    || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-jsonschema >/dev/null
fi

command -v swift >/dev/null || { echo "setup: swift is not on the PATH (expected /opt/swift/usr/bin)"; exit 1; }
