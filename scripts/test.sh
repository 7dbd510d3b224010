#!/usr/bin/env bash
# The README's second command: set up (including the test servers' packages), build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --for-tests
swift build --build-tests
swift test --skip-build
