# Sourced by the small-file benches (engine-fetch, run-fetch, run-cpu, run-instructions):
# the same files, curl list and manifest for each, so their figures compare.
#
#   make_small_files DIR N SIZE      N files of SIZE random bytes, DIR/f00000.bin ...
#   write_curl_list PORT N OUT       a `curl -K` list fetching them from 127.0.0.1:PORT into OUT
#   write_run_manifest PORT N OUT    an xferbatch manifest doing the same at concurrency 8

make_small_files() {
  python3 - "$1" "$2" "$3" <<'PY'
import os, sys
root, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for i in range(n):
    with open(f"{root}/f{i:05d}.bin", "wb") as f:
        f.write(os.urandom(size))
PY
}

write_curl_list() {
  local port=$1 n=$2 out=$3 i
  for i in $(seq 0 $((n - 1))); do
    printf 'url = "http://127.0.0.1:%s/f%05d.bin"\noutput = "%s/f%05d.bin"\n' "$port" "$i" "$out" "$i"
  done
}

write_run_manifest() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
port, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print(json.dumps({"version": 1, "outputDir": out, "limits": {"concurrency": 8, "perHost": 8},
                  "jobs": [{"id": f"f{i}", "download": {"url": f"http://127.0.0.1:{port}/f{i:05d}.bin", "to": f"f{i:05d}.bin"}} for i in range(n)]}))
PY
}
