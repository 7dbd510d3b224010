#!/usr/bin/env bash
# The README's second command: set up (including the test servers' packages), build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --for-tests
swift build --build-tests
swift build --product xferbatch-fixture
# Crash safety with the real binary and real servers, short form (the full form: bench/kill-test).
bench/kill-test --kills 8 --small 100 --large 2 --large-mib 64
swift test --skip-build
