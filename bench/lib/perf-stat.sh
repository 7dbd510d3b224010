# Sourced by bench/run-cpu and bench/run-floor:
#
#   measure LABEL COMMAND...   runs COMMAND under `perf stat`, prints "LABEL WALL CPU" (seconds)
#
# Their lines go to bench/lib/medians.py, which prints medians and per-round ratios.

command -v perf > /dev/null || { echo "needs perf (apt-get install linux-perf)"; exit 2; }

measure() {
  local label=$1; shift
  perf stat -x, -e task-clock,duration_time "$@" 2>&1 >/dev/null |
    awk -F, -v t="$label" '/task-clock/{c=$1/1000} /duration_time/{w=$1/1e9} END{printf "%s %.4f %.4f\n", t, w, c}'
}
