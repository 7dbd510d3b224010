#!/usr/bin/env bash
# The README's first command: set up, build, and show the main job on the bundled
# offline example (examples/quickstart.json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product xferbatch 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
bin=.build/release/xferbatch
"$bin" --version
"$bin" validate examples/quickstart.json
"$bin" plan examples/quickstart.json
