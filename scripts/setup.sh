#!/usr/bin/env bash
# Installs what cdcd needs on a Debian 12 machine, and nothing that is already there.
#   scripts/setup.sh build   compilers, libraries and build tools
#   scripts/setup.sh test    the above, plus Java/Maven (the Kafka broker, the Debezium harness),
#                            PostgreSQL and PostGIS (the postgres source's test server), kcat
#                            and the Python packages of the emulators and test services
# Idempotent: a second run makes no network call when everything is installed.
set -euo pipefail
cd "$(dirname "$0")/.."

want="${1:-build}"
# librdkafka itself is built from source by install_librdkafka.sh (Debian's 2.0.2 is too old);
# its -dev dependencies are here.
build_packages=(build-essential patch cmake ninja-build ccache pkg-config curl ca-certificates
  libboost1.81-dev libyaml-cpp-dev libsimdjson-dev librocksdb-dev libspdlog-dev
  catch2 libssl-dev libre2-dev libsystemd-dev libicu-dev
  libsasl2-dev libzstd-dev liblz4-dev zlib1g-dev libcurl4-openssl-dev libpq-dev)
test_packages=(kcat maven default-jdk-headless python3-pip python3-venv clang-format clang-tidy systemd tmux
  clang-14 libclang-rt-14-dev postgresql postgresql-postgis)

missing=()
check() {
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
}
check "${build_packages[@]}"
if [[ "$want" == test ]]; then
  check "${test_packages[@]}"
  # A JDK and Maven that did not come from Debian count too.
  if command -v java >/dev/null && command -v mvn >/dev/null; then
    missing=("${missing[@]/default-jdk-headless/}")
    missing=("${missing[@]/maven/}")
  fi
fi
# The 1.74 Boost headers lack asio channels; libboost1.81-dev replaces them.
read -ra missing <<<"${missing[*]:-}"
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

scripts/install_librdkafka.sh

if [[ "$want" == test ]]; then
  python3 -m pip --version >/dev/null 2>&1 || { echo "setup: pip is missing" >&2; exit 1; }
  stamp=.cache/requirements.sha
  mkdir -p .cache
  sum=$(cat $(find tests -name requirements.txt | sort) | sha256sum | cut -d' ' -f1)
  if [[ ! -f $stamp || $(cat $stamp) != "$sum" ]]; then
    echo "setup: installing Python test requirements" >&2
    args=()
    for r in $(find tests -name requirements.txt | sort); do args+=(-r "$r"); done
    python3 -m pip install -q --disable-pip-version-check "${args[@]}" \
      || python3 -m pip install -q --disable-pip-version-check --break-system-packages "${args[@]}"
    echo "$sum" >$stamp
  fi
  tests/services/kafka/install.sh >/dev/null
  # Debezium's Postgres connector, embedded (the fidelity test and bench/postgres compare with it).
  tests/services/debezium/build.sh --quiet >/dev/null
fi
