#!/usr/bin/env bash
# Regenerates the option tables in docs/*.md from the option declarations (the text between
# <!-- BEGIN cdcd describe --format markdown ... --> and <!-- END cdcd describe -->), with the
# same code as the unit test that fails when they drift: tests/unit/cmd/option_tables_test.cpp.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh release test_cmd
CDCD_SOURCE_DIR="$PWD" CDCD_UPDATE_DOCS=1 build/release/tests/unit/test_cmd \
  "option tables: the docs match the declarations of every connector"
git --no-pager diff --stat -- docs
