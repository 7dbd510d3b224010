"""Summarises callgrind profiles for bench/run-instructions.

usage: instructions.py CURL.cg RUN.cg...   (RUN-k.name beside each RUN-k.cg names its binary)

Prints each profile's total instructions, the part spent in BoringSSL's SHA-256 block
function (inflated under valgrind, which hides SHA-NI), the rest, and inclusive counts of
a few entry points that split a run into its phases.
"""
import os
import re
import subprocess
import sys

# (label, demangled function name the inclusive count is read from; several: the first
# found, for builds from before a function was renamed)
AREAS = [
    ("setup: read and plan the manifest", ("ManifestOptions.load(stateFolder:)", "ManifestOptions.load()", "ManifestOptions.loadPlan()")),
    ("engine threads (lanes), without sha256 blocks", "TransferEngine.runLoop()"),
    ("  libcurl, without sha256 blocks", "curl_multi_perform"),
    ("  tasks run there (jobs, the executor)", "swift_job_run_on_task_executor"),
    ("tasks on the global pool", "swift_job_run"),
    ("checkpoint of a finished file", "PreloadedCheckpointStore.saveFinishedFile(_:)"),
    ("grouped SQLite commits", "SQLiteCheckpointStore.saveAll(_:)"),
    ("job fingerprints", "static JobFingerprint.of(_:)"),
]
# The body is hashed inside libcurl's write callback: these areas' counts are shown without it.
WITHOUT_SHA = {"TransferEngine.runLoop()", "curl_multi_perform"}


def inclusive(profile):
    """Total, SHA-256 block instructions and {demangled name: inclusive count}."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", profile],
                          capture_output=True, text=True, check=True).stdout
    text = subprocess.run(["swift", "demangle", "--simplified"], input=text,
                          capture_output=True, text=True, check=True).stdout
    total, counts = 0, {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(.*)", line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        name = m.group(2)
        if name.startswith("PROGRAM TOTALS"):
            total = n
            continue
        name = re.sub(r"^(\?\?\?|[^:]*\.[chS]):", "", name)
        name = re.sub(r"\s*\[[^\]]*\]$", "", name)
        name = re.sub(r"^(specialized |partial apply for )+", "", name)
        counts[name] = max(n, counts.get(name, 0))
    sha = sum(n for name, n in counts.items() if re.fullmatch(r"CCryptoBoringSSL_sha256_block_data_order_\w+", name))
    return total, sha, counts


def millions(n):
    return f"{n / 1e6:9.1f} M"


def main():
    curl_total, _, _ = inclusive(sys.argv[1])
    print(f"{'curl --parallel --parallel-max 8':44} {millions(curl_total)}")
    base_rest = None
    for profile in sys.argv[2:]:
        name = open(profile[:-3] + ".name").read().strip()
        total, sha, counts = inclusive(profile)
        rest = total - sha
        base_rest = base_rest or rest
        print(f"\n{name}")
        print(f"  {'total':42} {millions(total)}")
        print(f"  {'sha256 blocks (AVX under valgrind)':42} {millions(sha)}")
        print(f"  {'rest':42} {millions(rest)}   x{rest / curl_total:.2f} curl, x{rest / base_rest:.3f} first build")
        for label, functions in AREAS:
            found = [f for f in ((functions,) if isinstance(functions, str) else functions) if f in counts]
            if found:
                n = counts[found[0]] - (sha if found[0] in WITHOUT_SHA else 0)
                print(f"  {label:42} {millions(n)}")


main()
