#!/usr/bin/env bash
# Prepares `npm run test:images`: podman (with runc) and debootstrap from Debian when they are missing,
# then the local Node.js base image (build-base-image.sh, kept in podman's storage between runs).
set -euo pipefail
cd "$(dirname "$0")/../.."

missing=()
command -v podman >/dev/null 2>&1 || missing+=(podman)
command -v runc >/dev/null 2>&1 || missing+=(runc)
command -v debootstrap >/dev/null 2>&1 || missing+=(debootstrap)
command -v psql >/dev/null 2>&1 || missing+=(postgresql-client)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

export CONTAINERS_CONF="$PWD/scripts/images/containers.conf"
scripts/images/build-base-image.sh

# Build layers of earlier runs are the cache that makes the next build fast; those unused for a day go.
podman image prune --force --filter until=24h >/dev/null
