#!/usr/bin/env bash
# Rebound's transport benchmark: libcurl from C, Rebound's CurlTransport and URLSession (and,
# optionally, AsyncHTTPClient) against one nginx on loopback, in alternating rounds.
#
# Usage: scripts/benchmark-transport.sh
#
#   ROUNDS=3          rounds; each runs every workload with every client, one process per run
#   QUICK=1           a smoke run: a tenth of the requests
#   CLIENTS="c c-options rebound rebound-loop rebound-auth pipeline pipeline-loop pipeline-ab urlsession"
#                     which clients run, in this order within a round (also: ahc); c-options is
#                     libcurl from C asked for what Rebound asks of it (decoding, timeouts, redirect
#                     rules, a kept head; see Benchmarks/c/curl_bench.c); rebound-auth sends the
#                     pipeline's request (with its Authorization field) without the pipeline;
#                     pipeline-ab runs pipeline and rebound-auth in one process over one transport,
#                     in 20 interleaved pairs of slices (twice the requests of the others)
#   WORKLOADS="sequential concurrent16 download1m"
#   WITH_AHC=1        also build and run Benchmarks/AsyncHTTPClientBenchmark (a few minutes to build)
#   SCRATCH=DIR       scratch path for the main package's release build (default: .build)
#   AHC_SCRATCH=DIR   scratch path for the AsyncHTTPClient package's build
#   PORT=18080        nginx's port; another free one is picked if it is taken
#   NGINX_WORKERS=1   nginx worker processes: with 2 cores, one for the server, one for the client
#   PIN=1             pin nginx to the last core and each client to the first (taskset), so that
#                     every client meets the same placement; PIN=0 lets the scheduler choose
#   RUN_TIMEOUT=600   seconds after which one client run is killed and counted as failed
#   RESULTS=FILE      where the JSON lines go (default: .build-benchmark/transport-DATE.jsonl)
#
# Every run prints one JSON line (see Benchmarks/TransportBenchmark/Harness/BenchmarkReport.swift);
# the script adds the round, the exit status, nginx's new connections and the share of the
# machine's CPU time the hypervisor took away during the run ("steal" in /proc/stat, 0 on bare
# metal: on a shared VM it is what makes a run untrustworthy). They are collected in $RESULTS, and a Markdown table per workload, of medians over the rounds and
# ratios to the C client, is printed and saved beside it. The machine is noisy: compare the ratios
# and the CPU per request, not absolute requests per second across runs.
#
# Exits non-zero if any run had a failed request or did not finish.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=${ROUNDS:-3}
QUICK=${QUICK:-0}
CLIENTS=${CLIENTS:-"c c-options rebound rebound-loop rebound-auth pipeline pipeline-loop pipeline-ab urlsession"}
WORKLOADS=${WORKLOADS:-"sequential concurrent16 download1m"}
WITH_AHC=${WITH_AHC:-0}
SCRATCH=${SCRATCH:-}
AHC_SCRATCH=${AHC_SCRATCH:-}
PORT=${PORT:-18080}
NGINX_WORKERS=${NGINX_WORKERS:-1}
PIN=${PIN:-1}
SERVER_PIN=()
CLIENT_PIN=()
if [[ $PIN == 1 ]] && command -v taskset >/dev/null 2>&1 && (($(nproc) >= 2)); then
    # Without pinning, whether a client's threads share a core with nginx decides its numbers
    # more than the client does: ratios swung from 0.3 to 2 between rounds on this machine.
    SERVER_PIN=(taskset -c "$(($(nproc) - 1))")
    CLIENT_PIN=(taskset -c 0)
fi
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
RESULTS=${RESULTS:-$ROOT/.build-benchmark/transport-$(date +%Y%m%d-%H%M%S).jsonl}

if [[ $WITH_AHC == 1 && " $CLIENTS " != *" ahc "* ]]; then
    CLIENTS="$CLIENTS ahc"
fi
for client in $CLIENTS; do
    case $client in
        c | c-options | rebound | rebound-loop | rebound-auth | pipeline | pipeline-loop | pipeline-ab | urlsession | ahc) ;;
        *) echo "unknown client '$client' (known: c c-options rebound rebound-loop rebound-auth pipeline pipeline-loop pipeline-ab urlsession ahc)" >&2; exit 2 ;;
    esac
done
wants() { [[ " $CLIENTS " == *" $1 "* ]]; }

log() { printf '==> %s\n' "$*" >&2; }

# The number of requests (and warm-up requests) per run. QUICK=1 runs a tenth, for a smoke test.
requests_for() {
    case $1 in
        sequential) [[ $QUICK == 1 ]] && echo "2000 100" || echo "20000 500" ;;
        concurrent16) [[ $QUICK == 1 ]] && echo "4000 100" || echo "40000 500" ;;
        download1m) [[ $QUICK == 1 ]] && echo "50 5" || echo "500 20" ;;
        *) echo "unknown workload '$1' (known: sequential concurrent16 download1m)" >&2; exit 2 ;;
    esac
}
for workload in $WORKLOADS; do requests_for "$workload" >/dev/null; done

# --- Tools ------------------------------------------------------------------------------------

SUDO=
if [[ $(id -u) != 0 ]] && command -v sudo >/dev/null; then SUDO=sudo; fi

apt_install() {
    log "installing $*"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get install -y -q "$@" >&2 || { $SUDO apt-get update -q >&2 && $SUDO apt-get install -y -q "$@" >&2; }
}

find_nginx() { command -v nginx || { [[ -x /usr/sbin/nginx ]] && echo /usr/sbin/nginx; }; }
NGINX=$(find_nginx || true)
if [[ -z $NGINX ]]; then
    apt_install nginx-light || apt_install nginx
    NGINX=$(find_nginx)
fi
if wants c; then
    command -v cc >/dev/null || apt_install gcc
    # The headers, wherever the distribution puts them (Debian's are under a multiarch folder).
    if ! echo '#include <curl/curl.h>' | cc -E -x c - >/dev/null 2>&1; then
        apt_install libcurl4-openssl-dev
    fi
fi
command -v python3 >/dev/null || apt_install python3

# --- nginx on loopback ----------------------------------------------------------------------

port_is_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if port_is_taken "$PORT"; then
    taken=$PORT
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    log "port $taken is taken; using $PORT"
fi

SERVER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rebound-bench.XXXXXX")
NGINX_PID=
CLIENT_PID=
cleanup() {
    if [[ -n $CLIENT_PID ]]; then
        kill "$CLIENT_PID" 2>/dev/null || true
        wait "$CLIENT_PID" 2>/dev/null || true
    fi
    if [[ -n $NGINX_PID ]]; then
        kill "$NGINX_PID" 2>/dev/null || true
        wait "$NGINX_PID" 2>/dev/null || true
    fi
    rm -rf "$SERVER_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$SERVER_DIR/www" "$SERVER_DIR/temp"
# About 100 bytes, like a small API response.
printf '%s' '{"id":4217,"name":"Rebound transport benchmark","tags":["http","libcurl"],"active":true,"score":0.875}' \
    >"$SERVER_DIR/www/small.json"
head -c 1048576 /dev/urandom >"$SERVER_DIR/www/1m.bin"
SMALL_BYTES=$(wc -c <"$SERVER_DIR/www/small.json")
LARGE_BYTES=$(wc -c <"$SERVER_DIR/www/1m.bin")

# nginx refuses to start if it cannot create the temp folders of the modules it was built with,
# which default to /var/lib/nginx; nginx-light lacks some modules, and naming their folders is an error.
NGINX_BUILD=$("$NGINX" -V 2>&1)
temp_paths="client_body_temp_path $SERVER_DIR/temp/body;"
for module in proxy fastcgi uwsgi scgi; do
    if [[ $NGINX_BUILD != *"--without-http_${module}_module"* ]]; then
        temp_paths+=$'\n'"    ${module}_temp_path $SERVER_DIR/temp/$module;"
    fi
done
# stub_status counts the connections nginx accepted, so each run can report how many its client opened.
status_location=
if [[ $NGINX_BUILD == *"--with-http_stub_status_module"* ]]; then
    status_location="location = /nginx_status { stub_status; }"
fi
# As root the workers would switch to nobody, who cannot read the private temp folder: keep them as us.
user_line=
if [[ $(id -u) == 0 ]]; then user_line="user $(id -un) $(id -gn);"; fi

cat >"$SERVER_DIR/nginx.conf" <<EOF
$user_line
worker_processes $NGINX_WORKERS;
daemon off;
pid $SERVER_DIR/nginx.pid;
error_log $SERVER_DIR/error.log warn;

events {
    worker_connections 1024;
}

http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    gzip off;
    # One connection carries a whole run: 20,500 sequential requests, or 40,500 over 16 connections.
    keepalive_requests 100000;
    keepalive_timeout 60s;
    $temp_paths
    types {
        application/json json;
        application/octet-stream bin;
    }
    default_type application/octet-stream;

    server {
        listen 127.0.0.1:$PORT backlog=1024;
        root $SERVER_DIR/www;
        $status_location
    }
}
EOF

log "starting $("$NGINX" -v 2>&1) on 127.0.0.1:$PORT"
"${SERVER_PIN[@]}" "$NGINX" -p "$SERVER_DIR" -c "$SERVER_DIR/nginx.conf" -e "$SERVER_DIR/error.log" &
NGINX_PID=$!
BASE_URL="http://127.0.0.1:$PORT"
python3 - "$BASE_URL" "$SMALL_BYTES" "$LARGE_BYTES" <<'PY' || { cat "$SERVER_DIR/error.log" >&2; exit 1; }
import sys, time, urllib.request
base, small, large = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
deadline = time.monotonic() + 10
while True:
    try:
        sizes = [len(urllib.request.urlopen(base + path, timeout=2).read()) for path in ("/small.json", "/1m.bin")]
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("nginx did not answer within 10 s")
        time.sleep(0.1)
if sizes != [small, large]:
    sys.exit(f"nginx served {sizes} bytes, expected {[small, large]}")
PY

# How many connections nginx has accepted so far, this query's own included; empty without stub_status.
accepted_connections() {
    [[ -n $status_location ]] || return 0
    local reply
    exec 3<>"/dev/tcp/127.0.0.1/$PORT"
    printf 'GET /nginx_status HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
    reply=$(cat <&3)
    exec 3<&-
    # The body reads "Active connections: 1\nserver accepts handled requests\n 12 12 40\n...".
    awk '/server accepts/ { getline; print $1 }' <<<"$reply"
}

# --- Builds ---------------------------------------------------------------------------------

if wants c || wants c-options; then
    log "building Benchmarks/c/curl-bench"
    CURL_FLAGS=$(pkg-config --cflags --libs libcurl 2>/dev/null || echo -lcurl)
    # shellcheck disable=SC2086 # CURL_FLAGS is a list of flags
    cc -O2 -Wall -Wextra -o "$ROOT/Benchmarks/c/curl-bench" "$ROOT/Benchmarks/c/curl_bench.c" $CURL_FLAGS
fi

SWIFT_BIN=
if wants rebound || wants rebound-loop || wants rebound-auth || wants pipeline || wants pipeline-loop || wants pipeline-ab || wants urlsession; then
    log "building transport-benchmark (release)"
    scratch_args=()
    if [[ -n $SCRATCH ]]; then scratch_args=(--scratch-path "$SCRATCH"); fi
    (cd "$ROOT" && swift build -c release --product transport-benchmark "${scratch_args[@]}" >&2)
    SWIFT_BIN=$(cd "$ROOT" && swift build -c release --show-bin-path "${scratch_args[@]}")
fi

AHC_BIN=
if wants ahc; then
    log "building Benchmarks/AsyncHTTPClientBenchmark (release; this takes a few minutes the first time)"
    ahc_args=(--package-path "$ROOT/Benchmarks/AsyncHTTPClientBenchmark")
    if [[ -n $AHC_SCRATCH ]]; then ahc_args+=(--scratch-path "$AHC_SCRATCH"); fi
    swift build -c release --product ahc-benchmark "${ahc_args[@]}" >&2
    AHC_BIN=$(swift build -c release --show-bin-path "${ahc_args[@]}")
fi

command_for() {
    case $1 in
        c | c-options) echo "$ROOT/Benchmarks/c/curl-bench" ;;
        rebound | rebound-loop | rebound-auth | pipeline | pipeline-loop | pipeline-ab | urlsession) echo "$SWIFT_BIN/transport-benchmark" ;;
        ahc) echo "$AHC_BIN/ahc-benchmark" ;;
    esac
}

# The machine's CPU time so far, from the first line of /proc/stat: "total steal" in ticks (user
# through steal; guest time is already counted in user).
cpu_ticks() {
    if [[ -r /proc/stat ]]; then
        # Summed by the shell: mawk prints sums of 2^31 ticks or more (a few days of a large
        # VM's uptime) in exponent form, which the shell's arithmetic cannot read.
        local label user nice system idle iowait irq softirq steal rest
        read -r label user nice system idle iowait irq softirq steal rest </proc/stat
        [[ $label == cpu ]] || return 0
        echo "$((user + nice + system + idle + iowait + irq + softirq + steal)) $steal"
    fi
}

# --- Rounds ---------------------------------------------------------------------------------

mkdir -p "$(dirname "$RESULTS")"
: >"$RESULTS"
failed_runs=0
log "$ROUNDS round(s) of [$WORKLOADS] x [$CLIENTS]$([[ $QUICK == 1 ]] && echo ', QUICK')"
for ((round = 1; round <= ROUNDS; round++)); do
    for workload in $WORKLOADS; do
        read -r requests warmup <<<"$(requests_for "$workload")"
        if [[ $workload == download1m ]]; then
            url=$BASE_URL/1m.bin bytes=$LARGE_BYTES
        else
            url=$BASE_URL/small.json bytes=$SMALL_BYTES
        fi
        for client in $CLIENTS; do
            status=0
            accepted_before=$(accepted_connections)
            read -r ticks_before steal_before <<<"$(cpu_ticks)" || true
            # In the background and waited for, so that an interrupt stops the run at once.
            timeout "$RUN_TIMEOUT" "${CLIENT_PIN[@]}" "$(command_for "$client")" --client "$client" --workload "$workload" \
                --url "$url" --expect-bytes "$bytes" --requests "$requests" --warmup "$warmup" \
                >"$SERVER_DIR/report.json" &
            CLIENT_PID=$!
            wait "$CLIENT_PID" || status=$?
            CLIENT_PID=
            line=$(head -n 1 "$SERVER_DIR/report.json")
            if [[ $line != "{"* ]]; then
                # No report: it crashed or timed out. Record it, so the table shows the gap.
                line="{\"client\":\"$client\",\"workload\":\"$workload\",\"requests\":0,\"failures\":-1}"
            fi
            if ((status != 0)); then
                failed_runs=$((failed_runs + 1))
                log "round $round: $client $workload FAILED (exit $status)"
            fi
            accepted_after=$(accepted_connections)
            read -r ticks_after steal_after <<<"$(cpu_ticks)" || true
            steal=null
            if [[ -n ${ticks_before:-} && -n ${ticks_after:-} ]] && ((ticks_after > ticks_before)); then
                steal=$(awk -v s=$((steal_after - steal_before)) -v t=$((ticks_after - ticks_before)) 'BEGIN { printf "%.3f", s / t }')
            fi
            connections=null
            if [[ -n $accepted_before && -n $accepted_after ]]; then
                connections=$((accepted_after - accepted_before - 1)) # less the second query's own
            fi
            printf '{"round":%d,"exit":%d,"connections":%s,"steal":%s,%s\n' "$round" "$status" "$connections" "$steal" "${line#\{}" |
                tee -a "$RESULTS" >&2
        done
    done
done

# --- Tables ---------------------------------------------------------------------------------

SUMMARY=${RESULTS%.jsonl}.md
{
    echo "# Transport benchmark$([[ $QUICK == 1 ]] && echo ' (QUICK smoke run: small N, not for conclusions)')"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%MZ), $ROUNDS round(s), $(nproc) cores, $(curl-config --version 2>/dev/null || echo libcurl), $("$NGINX" -v 2>&1 | sed 's/^nginx version: //') with $NGINX_WORKERS worker(s), $([[ ${#CLIENT_PIN[@]} -gt 0 ]] && echo "nginx on core $(($(nproc) - 1)), clients on core 0" || echo "not pinned"), $(swift --version 2>/dev/null | head -1 | sed 's/ (.*//')"
    python3 - "$RESULTS" "$CLIENTS" "$WORKLOADS" <<'PY'
import json, statistics, sys

results_path, clients, workloads = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
runs = [json.loads(line) for line in open(results_path) if line.strip()]

def good(run):
    return run.get("exit") == 0 and run.get("failures") == 0 and run.get("requests", 0) > 0

def median(values):
    return statistics.median(values) if values else None

def fmt(value, digits=0):
    return "–" if value is None else f"{value:,.{digits}f}"

def ratio_text(client, mine, reference, per_round):
    if mine is None or not reference:
        return "–"
    if client == "c":
        return "1.00"
    text = f"{mine / reference:.2f}"
    if len(per_round) > 1:
        text += f" ({min(per_round):.2f}–{max(per_round):.2f})"
    return text

def connections_text(counts):
    counts = [count for count in counts if count is not None]
    if not counts:
        return "–"
    low, high = min(counts), max(counts)
    return f"{low}" if low == high else f"{low}–{high}"

steals = [run["steal"] for run in runs if run.get("steal") is not None]
if steals:
    print()
    print(f"CPU time taken by the hypervisor (steal) during the runs: median {median(steals):.0%}, "
          f"highest {max(steals):.0%}. Above a few per cent, ratios move with it; compare within a round.")

# pipeline-ab reports in its own shape (below), not in the per-client tables.
table_clients = [client for client in clients if client != "pipeline-ab"]
for workload in workloads:
    mine = [run for run in runs if run["workload"] == workload]
    by_client = {client: [run for run in mine if run["client"] == client and good(run)] for client in table_clients}
    c_by_round = {run["round"]: run for run in by_client.get("c", [])}
    c_rps = median([run["rps"] for run in c_by_round.values()])
    c_mbps = median([run["mbps"] for run in c_by_round.values()])
    print()
    print(f"## {workload}")
    print()
    print("| client | req/s | req/s ×C | p50 µs | p99 µs | MB/s | MB/s ×C | peak RSS MiB | RSS growth MiB | CPU µs/req "
          "| connections | good runs |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for client in table_clients:
        good_runs = by_client[client]
        all_runs = [run for run in mine if run["client"] == client]
        rps = median([run["rps"] for run in good_runs])
        mbps = median([run["mbps"] for run in good_runs])
        # Ratios to C within each round, whose spread shows how much the machine moved.
        rps_ratios = [run["rps"] / c_by_round[run["round"]]["rps"] for run in good_runs if run["round"] in c_by_round]
        mbps_ratios = [run["mbps"] / c_by_round[run["round"]]["mbps"] for run in good_runs if run["round"] in c_by_round]
        print("| " + " | ".join([
            client,
            fmt(rps),
            ratio_text(client, rps, c_rps, rps_ratios),
            fmt(median([run["p50_us"] for run in good_runs]), 1),
            fmt(median([run["p99_us"] for run in good_runs]), 1),
            fmt(mbps, 1),
            ratio_text(client, mbps, c_mbps, mbps_ratios),
            fmt(median([run["peak_rss_kib"] / 1024 for run in good_runs]), 1),
            fmt(median([(run["peak_rss_kib"] - run["start_rss_kib"]) / 1024 for run in good_runs]), 1),
            fmt(median([run["cpu_seconds"] / run["requests"] * 1e6 for run in good_runs]), 1),
            connections_text([run.get("connections") for run in good_runs]),
            f"{len(good_runs)}/{len(all_runs)}",
        ]) + " |")

# The pipeline against the bare transport, round by round: the cost of Rebound's API layer.
pairs = [("pipeline", "rebound"), ("pipeline", "rebound-auth"), ("pipeline-loop", "rebound-loop")]
pairs = [(p, b) for p, b in pairs if p in clients and b in clients]
if pairs:
    print()
    print("## pipeline against the bare transport")
    print()
    print("| workload | " + " | ".join(f"{p} / {b}" for p, b in pairs) + " |")
    print("|---|" + "--:|" * len(pairs))
    for workload in workloads:
        cells = []
        for p, b in pairs:
            runs_p = {run["round"]: run for run in runs if run["workload"] == workload and run["client"] == p and good(run)}
            runs_b = {run["round"]: run for run in runs if run["workload"] == workload and run["client"] == b and good(run)}
            ratios = [runs_p[r]["rps"] / runs_b[r]["rps"] for r in runs_p if r in runs_b]
            if not ratios:
                cells.append("–")
                continue
            text = f"{median(ratios):.2f}"
            if len(ratios) > 1:
                text += f" ({min(ratios):.2f}–{max(ratios):.2f})"
            cells.append(text)
        print(f"| {workload} | " + " | ".join(cells) + " |")
    print()
    print("Median of the per-round ratios of requests per second, with their range in brackets.")

# The same comparison in one process, over one transport, in interleaved slices (pipeline-ab).
ab_runs = [run for run in runs if run["client"] == "pipeline-ab" and run.get("exit") == 0 and run.get("failures") == 0]
if "pipeline-ab" in clients:
    print()
    print("## pipeline against rebound-auth, interleaved in one process (pipeline-ab)")
    print()
    print("| workload | pipeline / rebound-auth | rebound-auth req/s | pipeline req/s | rebound-auth CPU µs/req "
          "| pipeline CPU µs/req | good runs |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for workload in workloads:
        good_runs = [run for run in ab_runs if run["workload"] == workload]
        all_runs = [run for run in runs if run["client"] == "pipeline-ab" and run["workload"] == workload]
        ratios = [run["ratio"] for run in good_runs]
        text = "–" if not ratios else f"{median(ratios):.2f}"
        if len(ratios) > 1:
            text += f" ({min(ratios):.2f}–{max(ratios):.2f})"
        print("| " + " | ".join([
            workload,
            text,
            fmt(median([run["bare_rps"] for run in good_runs])),
            fmt(median([run["pipeline_rps"] for run in good_runs])),
            fmt(median([run["bare_cpu_us"] for run in good_runs]), 1),
            fmt(median([run["pipeline_cpu_us"] for run in good_runs]), 1),
            f"{len(good_runs)}/{len(all_runs)}",
        ]) + " |")
    print()
    print("Each run cuts the workload into 20 pairs of slices, in the order AB BA AB …, over one transport;")
    print("its ratio is the median of the pairs' ratios of requests per second. The column gives the median")
    print("of the runs' ratios, with their range over the rounds in brackets.")
print()
print("Medians over the good runs; ×C is the median over the C client's median, with the range of the")
print("per-round ratios in brackets. MB/s counts response bodies (10^6 bytes); CPU is user + system time")
print("of the whole client process during the measured phase, divided by the requests. RSS growth is the")
print("peak less the peak when main began, before the client existed: it leaves out the runtime and the")
print("libraries loaded, which for transport-benchmark include FoundationNetworking whichever client runs.")
print("Connections are those nginx accepted during the run, warm-up included (the range over the rounds).")
PY
} >"$SUMMARY"
cat "$SUMMARY"
log "results: $RESULTS"
log "summary: $SUMMARY"

if ((failed_runs > 0)); then
    log "$failed_runs run(s) failed"
    exit 1
fi
