"""Summarises alternating runs of curl and one of ours, as bench/engine-fetch and
bench/run-fetch record them: one line per run and tool, "RUN TOOL FILES_PER_SECOND".

Prints best and median files/s for each, and the median of the per-run ratios: this VM
swings 2x between runs, so a ratio taken within one run is the steadier figure.

usage: python3 bench/lib/ratios.py RATES_FILE LABEL
"""
import statistics
import sys

rates = {}
for line in open(sys.argv[1]):
    run, tool, rate = line.split()
    rates.setdefault(tool, {})[run] = int(rate)
label = sys.argv[2]
curl, ours = rates["curl"], rates["ours"]
ratio = statistics.median(ours[r] / curl[r] for r in curl if r in ours)
print(f"{'curl:':{len(label) + 2}}best {max(curl.values())} files/s, median {statistics.median(curl.values()):.0f}")
print(f"{label + ':':{len(label) + 2}}best {max(ours.values())} files/s, median {statistics.median(ours.values()):.0f}")
print(f"ratio (median of per-run {label}/curl): {ratio:.2f}x (goal >= 1.0x)")
