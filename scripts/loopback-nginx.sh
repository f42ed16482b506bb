# shellcheck shell=bash
# nginx on loopback serving the benchmarks' 102-byte JSON file, for the measuring scripts:
#
#   source scripts/loopback-nginx.sh
#   start_loopback_nginx [CORE]    # pinned to CORE when given
#   curl "$LOOPBACK_URL"           # $LOOPBACK_BYTES bytes
#
# nginx is stopped and its directory removed when the script exits: start_loopback_nginx sets the
# script's EXIT trap (replacing any), and is meant to be called once. The file and the settings
# are those of scripts/benchmark-transport.sh's nginx, so that counts and sizes compare with its
# runs.

start_loopback_nginx() {
    local core=${1:-} nginx
    nginx=$(command -v nginx || { [[ -x /usr/sbin/nginx ]] && echo /usr/sbin/nginx; } || true)
    [[ -n "$nginx" ]] || { echo "needs nginx (apt-get install nginx-light)" >&2; return 1; }
    LOOPBACK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rebound-nginx.XXXXXX")
    trap stop_loopback_nginx EXIT
    mkdir -p "$LOOPBACK_DIR/www" "$LOOPBACK_DIR/temp"
    printf '%s' '{"id":4217,"name":"Rebound transport benchmark","tags":["http","libcurl"],"active":true,"score":0.875}' \
        >"$LOOPBACK_DIR/www/small.json"
    LOOPBACK_BYTES=$(wc -c <"$LOOPBACK_DIR/www/small.json")
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # As root, nginx's worker would otherwise run as nobody, who cannot read the temporary directory.
    local user_line=
    if [[ $(id -u) == 0 ]]; then user_line="user $(id -un) $(id -gn);"; fi
    cat >"$LOOPBACK_DIR/nginx.conf" <<EOF
$user_line
worker_processes 1;
daemon off;
pid $LOOPBACK_DIR/nginx.pid;
error_log $LOOPBACK_DIR/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    gzip off;
    keepalive_requests 100000;
    client_body_temp_path $LOOPBACK_DIR/temp/body;
    proxy_temp_path $LOOPBACK_DIR/temp/proxy;
    types { application/json json; }
    server { listen 127.0.0.1:$port; root $LOOPBACK_DIR/www; }
}
EOF
    local pin=()
    [[ -n "$core" ]] && pin=(taskset -c "$core")
    "${pin[@]}" "$nginx" -p "$LOOPBACK_DIR" -c "$LOOPBACK_DIR/nginx.conf" -e "$LOOPBACK_DIR/error.log" &
    LOOPBACK_NGINX_PID=$!
    LOOPBACK_URL=http://127.0.0.1:$port/small.json
    for _ in $(seq 50); do curl -sf "$LOOPBACK_URL" >/dev/null && return 0; sleep 0.1; done
    echo "nginx did not answer on $LOOPBACK_URL" >&2
    return 1
}

stop_loopback_nginx() {
    if [[ -n "${LOOPBACK_NGINX_PID:-}" ]]; then
        kill "$LOOPBACK_NGINX_PID" 2>/dev/null || true
        wait "$LOOPBACK_NGINX_PID" 2>/dev/null || true
    fi
    [[ -n "${LOOPBACK_DIR:-}" ]] && rm -rf "$LOOPBACK_DIR"
}
