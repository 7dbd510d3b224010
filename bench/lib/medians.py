"""Medians (and bests) of `measure` lines ("LABEL WALL CPU", bench/lib/perf-stat.sh) read from
stdin, per label, with the median of the per-round ratios to a base label: a steadier figure
than a ratio of medians when this VM's speed drifts between rounds.

usage: medians.py BASE [--speed]
  default: each label's time / BASE's (wall and CPU); labels ending ":up-to-date" get none
  --speed: BASE's wall time / each label's (how fast each goes, relative to BASE)
"""
import collections, sys

base_label, speed = sys.argv[1], "--speed" in sys.argv[2:]
rows = collections.defaultdict(list)
for line in sys.stdin:
    label, wall, cpu = line.split()
    rows[label].append((float(wall), float(cpu)))
base = rows[base_label]
med = lambda v: sorted(v)[len(v) // 2]
what = f"the per-round ratios of {base_label}'s wall time to each" if speed else f"the per-round ratios to {base_label}"
print(f"{len(base)} rounds; medians (best); last column{'' if speed else 's'}: median of {what}")
width = max(17, max(len(label) for label in rows) + 2)
for label, v in rows.items():
    w = sorted(x[0] for x in v); c = sorted(x[1] for x in v)
    n = min(len(v), len(base))
    if speed:
        ratios = f"   x{med([base[i][0] / v[i][0] for i in range(n)]):.2f} of {base_label}"
    elif label.endswith(":up-to-date"):
        ratios = ""
    else:
        ratios = f"   x{med([v[i][0] / base[i][0] for i in range(n)]):.3f} wall, x{med([v[i][1] / base[i][1] for i in range(n)]):.3f} cpu"
    print(f"{label:{width}}wall {w[len(w)//2]:.3f} s ({w[0]:.3f})   cpu {c[len(c)//2]:.3f} s ({c[0]:.3f}){ratios}")
