#!/usr/bin/env bash
# Builds the Debezium harness (pom.xml, src/) with mvn from Maven Central into
# $CDCD_DEBEZIUM_HOME (default ${CDCD_CACHE:-~/.cache/cdcd}/debezium-harness-<hash>): harness.jar
# and every runtime jar in libs/. Idempotent: the directory is named after a hash of the pom and
# the sources, so a second run only checks it exists (~10 ms). Locked against parallel builds.
#
#   build.sh [--quiet]
# Prints CDCD_DEBEZIUM_CLASSPATH=<jar>:<libs>/* on success; exits 3 when Maven Central cannot be
# reached (callers skip), 1 on another failure.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
quiet=0
[[ "${1:-}" == "--quiet" || "${1:-}" == "-q" ]] && quiet=1
say() { [[ $quiet == 1 ]] || echo "$@" >&2; }

command -v java >/dev/null || { echo "build.sh: java (17+) not found" >&2; exit 1; }
CDCD_CACHE="${CDCD_CACHE:-$HOME/.cache/cdcd}"
hash="$(cd "$HERE" && cat pom.xml $(find src -type f | sort) | sha256sum | cut -c1-12)"
home="${CDCD_DEBEZIUM_HOME:-$CDCD_CACHE/debezium-harness-$hash}"
built() { [[ -f "$home/harness.jar" && -d "$home/libs" && -f "$home/.built" ]]; }

if ! built; then
  command -v mvn >/dev/null || { echo "build.sh: mvn not found" >&2; exit 1; }
  mkdir -p "$CDCD_CACHE"
  exec 9>"$home.lock"
  flock -w 900 9 || { echo "build.sh: timed out waiting for $home.lock" >&2; exit 1; }
  if ! built; then
    t0=$(date +%s)
    say "building the Debezium harness into $home (mvn, Maven Central)"
    staging="$(mktemp -d "$home.tmp.XXXXXX")"
    trap 'rm -rf "$staging"' EXIT
    # Build a copy, so that target/ never lands in the source tree.
    cp -r "$HERE/pom.xml" "$HERE/src" "$staging/"
    if ! (cd "$staging" && timeout 900 mvn -B -q package dependency:copy-dependencies \
            -DincludeScope=runtime -DoutputDirectory="$staging/libs" >"$staging/mvn.log" 2>&1); then
      cat "$staging/mvn.log" >&2
      if grep -qiE "Could not transfer|UnknownHost|Connection (refused|timed out)|Network is unreachable" "$staging/mvn.log"; then
        echo "build.sh: Maven Central unreachable" >&2
        exit 3
      fi
      echo "build.sh: mvn failed" >&2
      exit 1
    fi
    cp "$staging/target/debezium-harness-1.jar" "$staging/harness.jar"
    rm -rf "$staging/target" "$staging/src" "$staging/mvn.log"
    touch "$staging/.built"
    rm -rf "$home"
    mv "$staging" "$home"
    trap - EXIT
    say "built the Debezium harness: $(ls "$home/libs" | wc -l) jars, $(( $(date +%s) - t0 ))s"
  fi
fi
[[ $quiet == 1 ]] || true
echo "CDCD_DEBEZIUM_CLASSPATH=$home/harness.jar:$home/libs/*"
