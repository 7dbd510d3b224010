# Sourced by the benches: serves "$work/www" with nginx on a free 127.0.0.1 port.
#
#   start_nginx WORK          sets $port and $nginx_pid; waits (bounded) until nginx answers
#   build_release             builds xferbatch (or the product given) the way benches run it
#
# One worker process, no access log, keep-alive without a request limit: the peer tools
# and xferbatch meet the same server. With ACCESS_LOG=FILE set, nginx logs each request's
# time ($msec) there, buffered and flushed every 100 ms (bench/run-phases reads it).
# nginx ignores SIGTERM in this mode; callers' EXIT traps send SIGKILL.

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

start_nginx() {
  local work=$1
  port=$(free_port)
  mkdir -p "$work/www" "$work/tmp"
  local log="access_log off;"
  [ -n "${ACCESS_LOG:-}" ] && log="log_format times '\$msec'; access_log $ACCESS_LOG times buffer=64k flush=100ms;"
  cat > "$work/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1; pid $work/nginx.pid; error_log $work/error.log;
events { worker_connections 4096; }
http { $log sendfile on; keepalive_requests 100000;
  client_body_temp_path $work/tmp/b; proxy_temp_path $work/tmp/p; fastcgi_temp_path $work/tmp/f; uwsgi_temp_path $work/tmp/u; scgi_temp_path $work/tmp/s;
  server { listen 127.0.0.1:$port; root $work/www; } }
CONF
  /usr/sbin/nginx -c "$work/nginx.conf" -p "$work" &
  nginx_pid=$!
  for _ in $(seq 50); do
    curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0
    sleep 0.1
  done
  echo "nginx did not answer on port $port" >&2
  return 1
}

build_release() {
  swift build -c release --static-swift-stdlib --product "${1:-xferbatch}" 2>&1 | grep -E "error|warning" | grep -v "mktemp" || true
}
