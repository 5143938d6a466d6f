#!/usr/bin/env bash
# Builds librdkafka from its release sources into $CDCD_CACHE/librdkafka-<version> (default
# ~/.cache/cdcd), where CMakeLists.txt finds it. Debian 12's librdkafka is 2.0.2, whose SCRAM
# handshake fails against Kafka 4 brokers (librdkafka #4895, fixed in 2.6.1) and whose consumer
# groups need the auto-commit workaround of #4059. Idempotent: a second run only reads a stamp.
#
# The sources come from the Rust crate registry's copy of the release (rdkafka-sys bundles the
# unmodified librdkafka tree), checked against a pinned SHA-256, with the patches of
# scripts/librdkafka_patches/ applied (each says what it fixes and why). Built static, with SSL, SASL
# (Cyrus: GSSAPI; SCRAM and PLAIN are built in), zstd, lz4, zlib and libcurl (OIDC), as Debian's
# and Confluent's builds are. Needs the -dev packages that scripts/setup.sh installs.
set -euo pipefail
RDKAFKA_VERSION=2.12.1
CRATE=rdkafka-sys-4.10.0+$RDKAFKA_VERSION
CRATE_SHA256=e234cf318915c1059d4921ef7f75616b5219b10b46e9f3a511a15eb4b56a3f77
CDCD_CACHE="${CDCD_CACHE:-$HOME/.cache/cdcd}"
home="$CDCD_CACHE/librdkafka-$RDKAFKA_VERSION"
stamp="$home/.installed"
patches_dir="$(cd "$(dirname "$0")" && pwd)/librdkafka_patches"
shopt -s nullglob
patches=("$patches_dir"/*.patch)
shopt -u nullglob
want="librdkafka=$RDKAFKA_VERSION crate=$CRATE_SHA256 script=$(sed -n '/^cmake -S/,/^$/p' "$0" | sha256sum | cut -c1-16) patches=$(cat /dev/null "${patches[@]}" | sha256sum | cut -c1-16)"
installed() { [[ -f $stamp && "$(cat "$stamp")" == "$want" && -f $home/lib/librdkafka.a ]]; }
installed && exit 0

mkdir -p "$CDCD_CACHE"
# Clones and worktrees share the cache: one build at a time.
exec 9>"$home.lock"
flock -w 900 9 || { echo "install_librdkafka: timed out waiting for $home.lock" >&2; exit 1; }
installed && exit 0

started=$SECONDS
echo "setup: building librdkafka $RDKAFKA_VERSION into $home (about a minute on 2 cores)" >&2
tmp="$(mktemp -d "$home.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
url="https://static.crates.io/crates/rdkafka-sys/$CRATE.crate"
curl -sSfL --retry 3 --max-time 300 -o "$tmp/src.tar.gz" "$url" \
  || { echo "install_librdkafka: download failed: $url" >&2; exit 1; }
echo "$CRATE_SHA256  $tmp/src.tar.gz" | sha256sum -c --quiet - \
  || { echo "install_librdkafka: $url does not have the pinned SHA-256" >&2; exit 1; }
tar -xzf "$tmp/src.tar.gz" -C "$tmp" "$CRATE/librdkafka"
src="$tmp/$CRATE/librdkafka"
for p in "${patches[@]}"; do
  patch -d "$src" -p1 --forward --batch --quiet <"$p" \
    || { echo "install_librdkafka: $p does not apply to librdkafka $RDKAFKA_VERSION" >&2; exit 1; }
done

cmake -S "$src" -B "$tmp/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$tmp/prefix" -DCMAKE_INSTALL_LIBDIR=lib \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DRDKAFKA_BUILD_STATIC=ON \
  -DRDKAFKA_BUILD_EXAMPLES=OFF -DRDKAFKA_BUILD_TESTS=OFF \
  -DWITH_SSL=ON -DWITH_SASL=ON -DWITH_ZSTD=ON -DWITH_ZLIB=ON -DWITH_CURL=ON -DENABLE_LZ4_EXT=ON \
  >"$tmp/build.log" 2>&1 || { tail -40 "$tmp/build.log" >&2; echo "install_librdkafka: configure failed" >&2; exit 1; }

if ! { cmake --build "$tmp/build" -j "$(nproc)" && cmake --install "$tmp/build"; } >>"$tmp/build.log" 2>&1; then
  tail -40 "$tmp/build.log" >&2
  echo "install_librdkafka: build failed" >&2
  exit 1
fi
echo "$want" >"$tmp/prefix/.installed"
rm -rf "$home"
mv "$tmp/prefix" "$home"
echo "setup: librdkafka $RDKAFKA_VERSION built in $((SECONDS - started)) s" >&2
