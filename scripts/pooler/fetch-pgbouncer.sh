#!/usr/bin/env bash
# Prints the path of a PgBouncer to run: $PGBOUNCER, the one on the PATH or in /usr/sbin (Debian's
# package), or else Debian's package unpacked into the folder given as the first argument (default: a new
# temporary folder) without installing it: no service is set up or started, nothing outside that folder
# changes. A folder that already holds an unpacked one is used again.
set -euo pipefail

if [ -n "${PGBOUNCER:-}" ]; then
  [ -x "$PGBOUNCER" ] || { echo "PGBOUNCER=$PGBOUNCER is not an executable" >&2; exit 1; }
  echo "$PGBOUNCER"
  exit 0
fi
for candidate in "$(command -v pgbouncer || true)" /usr/sbin/pgbouncer; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    echo "$candidate"
    exit 0
  fi
done

dir="$(realpath -m "${1:-$(mktemp -d)}")"
if [ -x "$dir/pgbouncer" ]; then
  echo "$dir/pgbouncer"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "no pgbouncer found: install PgBouncer (e.g. Debian's pgbouncer package) or set PGBOUNCER" >&2
  exit 1
fi
mkdir -p "$dir"
cd "$dir"
# The server and the two libraries it needs that a machine with PostgreSQL alone may lack.
packages=(pgbouncer libc-ares2 libevent-2.1-7)
if ! apt-get download "${packages[@]}" >download.log 2>&1; then
  { apt-get update -qq && apt-get download "${packages[@]}"; } >download.log 2>&1 \
    || { cat download.log >&2; exit 1; }
fi
for deb in ./*.deb; do dpkg-deb -x "$deb" root; done
libraries="$(find "$dir/root" -name 'lib*.so*' -printf '%h\n' | sort -u | paste -sd:)"
cat >pgbouncer.tmp <<WRAPPER
#!/bin/sh
LD_LIBRARY_PATH="$libraries\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "$dir/root/usr/sbin/pgbouncer" "\$@"
WRAPPER
chmod 755 pgbouncer.tmp
mv pgbouncer.tmp pgbouncer
echo "$dir/pgbouncer"
