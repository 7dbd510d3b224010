#!/usr/bin/env bash
# Fuzzes with libFuzzer; not part of CI. `scripts/fuzz.sh [manifest|file-name]`:
# - manifest (the default; fuzz/ManifestFuzz.swift): bytes through what `validate` and
#   `plan` do, in process, looking for crashes, traps, hangs, plans whose JSON does not
#   parse and refusals without a problem. Seeds: the examples and the invalid manifests
#   of the tests; a dictionary of the schema's keys and values helps it past "unknown key".
# - file-name (fuzz/FileNameFuzz.swift): the name a server's Content-Disposition, the final
#   URL and the job id give a download in a folder must be a safe base name.
# A release build with coverage instrumentation in a package of its own under
# .build-fuzz/ (about 5 minutes here the first time), then SECONDS_TO_RUN (default 600)
# of fuzzing on one processor. Exits 0 when nothing is found; otherwise libFuzzer names
# the input it saved under .build-fuzz/findings/, which
# `.build-fuzz/pkg/.build/release/<Target> FILE` replays. The corpus it grows is kept in
# .build-fuzz/corpus-<target>/ for the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
target=${1:-manifest}
case "$target" in
  manifest) product=ManifestFuzz ;;
  file-name) product=FileNameFuzz ;;
  *) echo "usage: $0 [manifest|file-name]" >&2; exit 2 ;;
esac
work=$root/.build-fuzz
corpus=$work/corpus-$target
seeds=$work/seeds-$target
mkdir -p "$work/pkg/Sources/ManifestFuzz" "$work/pkg/Sources/FileNameFuzz" "$corpus" "$seeds" "$work/findings"
cp fuzz/ManifestFuzz.swift fuzz/FuzzDriver.swift "$work/pkg/Sources/ManifestFuzz/"
cp fuzz/FileNameFuzz.swift fuzz/FuzzDriver.swift "$work/pkg/Sources/FileNameFuzz/"
# A package of its own, so the instrumentation stays out of the project's builds; SwiftPM
# names a dependency given by path after its folder.
cat > "$work/pkg/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let xferBatch: Target.Dependency = .product(name: "XferBatch", package: "$(basename "$root")")
let package = Package(
    name: "xferbatch-fuzz",
    dependencies: [.package(path: "$root")],
    targets: [
        .executableTarget(name: "ManifestFuzz", dependencies: [xferBatch]),
        .executableTarget(name: "FileNameFuzz", dependencies: [xferBatch]),
    ]
)
SWIFT
swift build --package-path "$work/pkg" -c release -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library --product "$product"
options=(-max_len=4096)
if [ "$target" = manifest ]; then
  for f in examples/*.json Tests/Manifests/invalid/*.json; do cp "$f" "$seeds/$(echo "$f" | tr / _)"; done
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
  options+=(-dict="$work/dictionary")
else
  printf 'attachment; filename="report.pdf"' > "$seeds/plain"
  printf "attachment; filename*=UTF-8''r%%C3%%A9sum%%C3%%A9.txt" > "$seeds/extended"
  printf 'inline; filename="..\\\\x"\0https://example.org/a/b%%2Fc.bin?x=1\0job-1' > "$seeds/three-fields"
  options=(-max_len=600)
fi
SWIFT_BACKTRACE=enable=no "$work/pkg/.build/release/$product" "${options[@]}" -timeout=10 -rss_limit_mb=4096 \
  -max_total_time="${SECONDS_TO_RUN:-600}" -artifact_prefix="$work/findings/" -print_final_stats=1 \
  "$corpus" "$seeds"
