#!/usr/bin/env bash
# Fuzzes the manifest's reading and planning with libFuzzer (fuzz/ManifestFuzz.swift): bytes
# through what `validate` and `plan` do, in process, looking for crashes, traps, hangs,
# plans whose JSON does not parse and refusals without a problem. Not part of CI: a release
# build with coverage instrumentation (about 5 minutes here the first time), then
# SECONDS_TO_RUN (default 600) of fuzzing on one processor. Exits 0 when nothing is found;
# otherwise libFuzzer names the input it saved under .build-fuzz/findings/, which
# `.build-fuzz/pkg/.build/release/ManifestFuzz FILE` replays.
#
# Seeds: the examples and the invalid manifests of the tests; a dictionary of the schema's
# keys and values helps it past "unknown key". The corpus it grows is kept in
# .build-fuzz/corpus/ for the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$root/.build-fuzz
mkdir -p "$work/pkg/Sources/ManifestFuzz" "$work/corpus" "$work/seeds" "$work/findings"
cp fuzz/ManifestFuzz.swift "$work/pkg/Sources/ManifestFuzz/"
# A package of its own, so the instrumentation stays out of the project's builds; SwiftPM
# names a dependency given by path after its folder.
cat > "$work/pkg/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "xferbatch-fuzz",
    dependencies: [.package(path: "$root")],
    targets: [.executableTarget(name: "ManifestFuzz", dependencies: [.product(name: "XferBatch", package: "$(basename "$root")")])]
)
SWIFT
swift build --package-path "$work/pkg" -c release -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library --product ManifestFuzz
for f in examples/*.json Tests/Manifests/invalid/*.json; do cp "$f" "$work/seeds/$(echo "$f" | tr / _)"; done
python3 - "$work/dictionary" <<'PY'
import glob, json, sys
words = set()
def walk(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict): words.update(value)
            if key == "enum" and isinstance(value, list): words.update(v for v in value if isinstance(v, str))
            walk(value)
    elif isinstance(node, list):
        for value in node: walk(value)
walk(json.load(open("schemas/manifest.schema.json")))
extra = ["http://", "https://", "ftp://", "sftp://", "file://", "data:,", "${API_TOKEN}", "${HOME}", "$$", "%2F",
         "../", "**", "*", "?", "1KiB", "10s", "[]", "{}", "null", "1e309", "-0"]
with open(sys.argv[1], "w") as out:
    for word in sorted(words): out.write(json.dumps(json.dumps(word)) + "\n")
    for word in extra: out.write(json.dumps(word) + "\n")
PY
SWIFT_BACKTRACE=enable=no "$work/pkg/.build/release/ManifestFuzz" \
  -dict="$work/dictionary" -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
  -max_total_time="${SECONDS_TO_RUN:-600}" -artifact_prefix="$work/findings/" -print_final_stats=1 \
  "$work/corpus" "$work/seeds"
