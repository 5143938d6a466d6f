#!/usr/bin/env bash
# Sets up, builds and runs the quickstart pipeline (values source → route → values sink); no
# server needed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
scripts/build.sh release cdcd
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
build/release/cmd/cdcd run examples/quickstart.yaml --state-dir "$state"
