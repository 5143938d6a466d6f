#!/usr/bin/env bash
# Install the Apache Kafka broker (org.apache.kafka:kafka_2.13:$KAFKA_VERSION) and every runtime
# jar it needs from Maven Central with mvn, into $CDCD_KAFKA_HOME/libs (default
# ~/.cache/cdcd/kafka-<version>/libs). Idempotent: a second run only compares a stamp file.
#
#   install.sh [--quiet] [--with-kcat]
#     --with-kcat   also apt-get install kcat if it is missing (needs root)
# Prints CDCD_KAFKA_HOME=<dir> on success.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=env.sh
. "$HERE/env.sh"

quiet=0 with_kcat=0
for a in "$@"; do
  case "$a" in
    --quiet|-q) quiet=1 ;;
    --with-kcat) with_kcat=1 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done
say() { [[ $quiet == 1 ]] || echo "$@" >&2; }

if [[ $with_kcat == 1 ]] && ! command -v kcat >/dev/null 2>&1; then
  say "installing kcat (apt)"
  if ! DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -q kcat >/dev/null; then
    timeout 300 apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -q kcat >/dev/null
  fi
fi

command -v java >/dev/null || { echo "install.sh: java (17+) not found" >&2; exit 1; }

stamp="$CDCD_KAFKA_HOME/.installed"
want="kafka=$KAFKA_VERSION pom=$(sha256sum "$HERE/pom.xml" | cut -c1-16)"
installed() { [[ -f $stamp && "$(cat "$stamp")" == "$want" && -f "$CDCD_KAFKA_LIBS/kafka_2.13-$KAFKA_VERSION.jar" ]]; }

if ! installed; then
  command -v mvn >/dev/null || { echo "install.sh: mvn not found" >&2; exit 1; }
  mkdir -p "$CDCD_CACHE"
  # Several test sessions may install at once: serialise on a lock next to the install dir.
  exec 9>"$CDCD_KAFKA_HOME.lock"
  flock -w 900 9 || { echo "install.sh: timed out waiting for $CDCD_KAFKA_HOME.lock" >&2; exit 1; }
  if ! installed; then
    t0=$(date +%s)
    say "installing Kafka $KAFKA_VERSION into $CDCD_KAFKA_HOME (mvn, Maven Central)"
    tmp="$(mktemp -d "$CDCD_KAFKA_HOME.tmp.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    # -f pom.xml in this folder; the outputs go to $tmp only (packaging=pom builds nothing).
    if ! timeout 900 mvn -B -q -f "$HERE/pom.xml" -Dkafka.version="$KAFKA_VERSION" \
          dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp/libs" >"$tmp/mvn.log" 2>&1; then
      cat "$tmp/mvn.log" >&2
      echo "install.sh: mvn failed (is org.apache.kafka:kafka_2.13:$KAFKA_VERSION on Maven Central?)" >&2
      exit 1
    fi
    [[ -f "$tmp/libs/kafka_2.13-$KAFKA_VERSION.jar" ]] || { echo "install.sh: broker jar missing after mvn" >&2; exit 1; }
    rm -f "$tmp/mvn.log"
    echo "$want" >"$tmp/.installed"
    rm -rf "$CDCD_KAFKA_HOME"
    mv "$tmp" "$CDCD_KAFKA_HOME"
    trap - EXIT
    say "installed Kafka $KAFKA_VERSION: $(ls "$CDCD_KAFKA_LIBS" | wc -l) jars, $(du -sh "$CDCD_KAFKA_LIBS" | cut -f1), $(( $(date +%s) - t0 ))s"
  fi
fi
[[ $quiet == 1 ]] || echo "CDCD_KAFKA_HOME=$CDCD_KAFKA_HOME"
