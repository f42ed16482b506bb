#!/usr/bin/env bash
# Peak resident memory of one small call: `rebound fetch` and the transport benchmark's sequential
# client against nginx serving a 102-byte file on loopback, with `curl -s` as the reference.
# Release builds; ROUNDS rounds (5 by default), the three alternating; prints each run and the
# medians, in MiB (GNU time's maximum resident set size).
#
#   scripts/measure-memory.sh
#   ROUNDS=9 scripts/measure-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
SWIFT=${SWIFT:-swift}

[[ -x /usr/bin/time ]] || { echo "needs GNU time (apt-get install time)" >&2; exit 1; }
NGINX=$(command -v nginx || { [[ -x /usr/sbin/nginx ]] && echo /usr/sbin/nginx; } || true)
[[ -n "$NGINX" ]] || { echo "needs nginx (apt-get install nginx-light)" >&2; exit 1; }

"$SWIFT" build -c release --product rebound >&2
"$SWIFT" build -c release --product transport-benchmark >&2
BIN=$("$SWIFT" build -c release --show-bin-path)

SERVER_DIR=$(mktemp -d)
NGINX_PID=
cleanup() {
    [[ -n "$NGINX_PID" ]] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
    rm -rf "$SERVER_DIR"
}
trap cleanup EXIT
mkdir -p "$SERVER_DIR/www" "$SERVER_DIR/temp"
printf '%s' '{"id":4217,"name":"Rebound transport benchmark","tags":["http","libcurl"],"active":true,"score":0.875}' \
    >"$SERVER_DIR/www/small.json"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# As root, nginx's worker would otherwise run as nobody, who cannot read the temporary directory.
cat >"$SERVER_DIR/nginx.conf" <<EOF
user $(id -un) $(id -gn);
worker_processes 1;
daemon off;
pid $SERVER_DIR/nginx.pid;
error_log $SERVER_DIR/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $SERVER_DIR/temp/body;
    proxy_temp_path $SERVER_DIR/temp/proxy;
    types { application/json json; }
    server { listen 127.0.0.1:$PORT; root $SERVER_DIR/www; }
}
EOF
"$NGINX" -p "$SERVER_DIR" -c "$SERVER_DIR/nginx.conf" -e "$SERVER_DIR/error.log" &
NGINX_PID=$!
URL=http://127.0.0.1:$PORT/small.json
for _ in $(seq 50); do curl -sf "$URL" >/dev/null && break; sleep 0.1; done
curl -sf "$URL" >/dev/null || { echo "nginx did not answer on $URL" >&2; exit 1; }

# The peak resident set of a command, in KiB; the command's own output is dropped.
peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

fetch=() bench=() reference=()
for round in $(seq "$ROUNDS"); do
    fetch+=("$(peak "$BIN/rebound" fetch "$URL")")
    bench+=("$(peak "$BIN/transport-benchmark" --client rebound --workload sequential --url "$URL" --expect-bytes 102)")
    reference+=("$(peak curl -s "$URL")")
    echo "round $round: rebound fetch ${fetch[-1]} KiB, transport-benchmark ${bench[-1]} KiB, curl ${reference[-1]} KiB"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { printf "%.1f MiB", v[int((NR + 1) / 2)] / 1024 }'; }
echo "medians of $ROUNDS: rebound fetch $(median "${fetch[@]}"), transport-benchmark $(median "${bench[@]}"), curl -s $(median "${reference[@]}")"
