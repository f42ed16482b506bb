#!/usr/bin/env bash
# Rebound's transport benchmark: libcurl from C, Rebound's CurlTransport and URLSession (and,
# optionally, AsyncHTTPClient) against one nginx on loopback, in alternating rounds.
#
# Usage: scripts/benchmark-transport.sh
#        BASELINE=85316e5 CLIENTS="rebound rebound-loop" scripts/benchmark-transport.sh
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
#                     also: concurrent1000 and concurrent5000 (that many in flight, each on its own
#                     connection) and queued1000 (1,000 in flight over 32 connections, the
#                     transport's default per-host limit); those three run the Swift clients only,
#                     and need a hard descriptor limit (ulimit -Hn) of about twice the connections
#   PIPELINE_STORE=memory  the credential store the pipeline clients' auth handler reads: memory
#                     (InMemoryCredentialStore, read without an asynchronous call) or app (a store
#                     of the app's own, so that its prepare is an asynchronous hook, raced against
#                     the deadline)
#   BASELINE=REV      also build revision REV (any name git knows) from a git worktree and run each
#                     Swift client of it as "<client>@base" next to the same client of the working
#                     tree, the two alternating (head first in odd rounds, base first in even ones);
#                     the summary then adds a table of head against base, round by round
#   BASELINE_SCRATCH=DIR  where the baseline's worktree and release build go (default:
#                     .build-baseline); kept, so that the next baseline builds incrementally
#   BASELINE_ENV="A=1 B=2"  environment for the baseline's runs only (BASELINE=HEAD with
#                     BASELINE_ENV=REBOUND_CURL_MEMORY=1 compares the working tree with and without
#                     CurlTransport.reuseReceiveBuffers())
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
# metal: on a shared VM it is what makes a run untrustworthy). They are collected in $RESULTS, and
# scripts/benchmark-summary.py prints a Markdown table per workload (medians over the rounds of
# requests/s, p50 and p99 latency, MB/s, peak memory, memory growth and CPU per request, each with
# its ratio to the C client) and saves it beside them; it can be run again on a kept results file. The machine is noisy: compare the ratios
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
BASELINE=${BASELINE:-}
BASELINE_SCRATCH=${BASELINE_SCRATCH:-$ROOT/.build-baseline}
read -ra BASELINE_ENV <<<"${BASELINE_ENV:-}"
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
# The clients that run from transport-benchmark, and so from the baseline too.
is_swift_client() {
    case $1 in
        rebound | rebound-loop | rebound-auth | pipeline | pipeline-loop | urlsession) return 0 ;;
        *) return 1 ;;
    esac
}

log() { printf '==> %s\n' "$*" >&2; }

# The number of requests (and warm-up requests) per run. QUICK=1 runs a tenth, for a smoke test.
requests_for() {
    case $1 in
        sequential) [[ $QUICK == 1 ]] && echo "2000 100" || echo "20000 500" ;;
        concurrent16) [[ $QUICK == 1 ]] && echo "4000 100" || echo "40000 500" ;;
        download1m) [[ $QUICK == 1 ]] && echo "50 5" || echo "500 20" ;;
        concurrent1000 | queued1000) [[ $QUICK == 1 ]] && echo "4000 1000" || echo "40000 1000" ;;
        concurrent5000) [[ $QUICK == 1 ]] && echo "10000 5000" || echo "40000 5000" ;;
        *) echo "unknown workload '$1' (known: sequential concurrent16 download1m concurrent1000 concurrent5000 queued1000)" >&2; exit 2 ;;
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

# Thousands of connections need as many descriptors on each side: the script (and so every client
# it starts) and nginx take the hard limit as their soft one.
NOFILE=$(ulimit -Hn)
[[ $NOFILE == unlimited ]] && NOFILE=65536
ulimit -n "$NOFILE"

cat >"$SERVER_DIR/nginx.conf" <<EOF
$user_line
worker_processes $NGINX_WORKERS;
daemon off;
pid $SERVER_DIR/nginx.pid;
error_log $SERVER_DIR/error.log warn;

worker_rlimit_nofile $NOFILE;
events {
    worker_connections $((NOFILE / 2 > 1024 ? NOFILE / 2 : 1024));
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
        listen 127.0.0.1:$PORT backlog=4096;
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

BASE_BIN=
BASE_REVISION=
if [[ -n $BASELINE ]]; then
    base_commit=$(git -C "$ROOT" rev-parse --verify "$BASELINE^{commit}")
    BASE_REVISION=$(git -C "$ROOT" rev-parse --short "$base_commit")
    worktree=$BASELINE_SCRATCH/worktree
    if [[ -e $worktree/.git ]]; then
        git -C "$worktree" checkout -q --force --detach "$base_commit"
    else
        mkdir -p "$BASELINE_SCRATCH"
        git -C "$ROOT" worktree add -q --force --detach "$worktree" "$base_commit"
    fi
    log "building transport-benchmark of $BASE_REVISION (release) in $BASELINE_SCRATCH"
    base_args=(--package-path "$worktree" --scratch-path "$BASELINE_SCRATCH/build")
    swift build -c release --product transport-benchmark "${base_args[@]}" >&2
    BASE_BIN=$(swift build -c release --show-bin-path "${base_args[@]}")/transport-benchmark
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

# One run of $client on $workload in $round: the working tree's ("head") or the baseline's ("base").
run_client() {
    local side=$1 label=$client binary env=()
    binary=$(command_for "$client")
    if [[ $side == base ]]; then
        label=$client@base binary=$BASE_BIN env=("${BASELINE_ENV[@]}")
    fi
    local status=0 accepted_before accepted_after ticks_before steal_before ticks_after steal_after line steal connections
    accepted_before=$(accepted_connections)
    read -r ticks_before steal_before <<<"$(cpu_ticks)" || true
    # In the background and waited for, so that an interrupt stops the run at once.
    env "${env[@]}" timeout "$RUN_TIMEOUT" "${CLIENT_PIN[@]}" "$binary" --client "$client" --workload "$workload" \
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
    line=${line/\"client\":\"$client\"/\"client\":\"$label\"}
    if ((status != 0)); then
        failed_runs=$((failed_runs + 1))
        log "round $round: $label $workload FAILED (exit $status)"
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
}

mkdir -p "$(dirname "$RESULTS")"
: >"$RESULTS"
failed_runs=0
log "$ROUNDS round(s) of [$WORKLOADS] x [$CLIENTS]$([[ $QUICK == 1 ]] && echo ', QUICK')$([[ -n $BASE_REVISION ]] && echo ", against $BASE_REVISION")"
for ((round = 1; round <= ROUNDS; round++)); do
    for workload in $WORKLOADS; do
        read -r requests warmup <<<"$(requests_for "$workload")"
        if [[ $workload == download1m ]]; then
            url=$BASE_URL/1m.bin bytes=$LARGE_BYTES
        else
            url=$BASE_URL/small.json bytes=$SMALL_BYTES
        fi
        for client in $CLIENTS; do
            if [[ -n $BASE_BIN ]] && is_swift_client "$client"; then
                # Alternating, so that neither revision always runs on a machine just warmed up
                # (or slowed down) by the other.
                if ((round % 2 == 1)); then sides="head base"; else sides="base head"; fi
            else
                sides=head
            fi
            for side in $sides; do
                run_client "$side"
            done
        done
    done
done

# --- Tables ---------------------------------------------------------------------------------

SUMMARY=${RESULTS%.jsonl}.md
{
    echo "# Transport benchmark$([[ $QUICK == 1 ]] && echo ' (QUICK smoke run: small N, not for conclusions)')"
    echo
    echo "$(date -u +%Y-%m-%dT%H:%MZ), $ROUNDS round(s), $(nproc) cores, $(curl-config --version 2>/dev/null || echo libcurl), $("$NGINX" -v 2>&1 | sed 's/^nginx version: //') with $NGINX_WORKERS worker(s), $([[ ${#CLIENT_PIN[@]} -gt 0 ]] && echo "nginx on core $(($(nproc) - 1)), clients on core 0" || echo "not pinned"), $(swift --version 2>/dev/null | head -1 | sed 's/ (.*//')"
    summary_clients=$CLIENTS
    if [[ -n $BASE_REVISION ]]; then
        summary_clients=
        for client in $CLIENTS; do
            summary_clients+=" $client"
            if is_swift_client "$client"; then summary_clients+=" $client@base"; fi
        done
        echo
        echo "Baseline (\"@base\"): $BASE_REVISION$([[ ${#BASELINE_ENV[@]} -gt 0 ]] && echo " with ${BASELINE_ENV[*]}"); head: the working tree at $(git -C "$ROOT" rev-parse --short HEAD)$([[ -n $(git -C "$ROOT" status --porcelain --untracked-files=no) ]] && echo ' with changes')."
    fi
    python3 "$ROOT/scripts/benchmark-summary.py" "$RESULTS" "$summary_clients" "$WORKLOADS"
    if [[ -n $BASE_REVISION ]]; then
        python3 - "$RESULTS" "$CLIENTS" "$WORKLOADS" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
runs = [run for run in runs if run.get("exit") == 0 and run.get("failures") == 0 and run.get("requests", 0) > 0]
clients, workloads = sys.argv[2].split(), sys.argv[3].split()
def by_round(client, workload):
    return {run["round"]: run for run in runs if run["client"] == client and run["workload"] == workload}
def cpu(run):
    return run["cpu_seconds"] / run["requests"] * 1e6
def ratio(values):
    if not values:
        return "–"
    text = f"{statistics.median(values):.3f}"
    return text + (f" ({min(values):.3f}–{max(values):.3f})" if len(values) > 1 else "")
print()
print("## head against base")
print()
print("| workload | client | base req/s | head req/s | head / base req/s | base CPU µs/req | head CPU µs/req | head / base CPU |")
print("|---|---|--:|--:|--:|--:|--:|--:|")
for workload in workloads:
    for client in clients:
        head, base = by_round(client, workload), by_round(client + "@base", workload)
        rounds = sorted(set(head) & set(base))
        if not rounds:
            continue
        print(f"| {workload} | {client} | {statistics.median(base[r]['rps'] for r in rounds):,.0f} "
              f"| {statistics.median(head[r]['rps'] for r in rounds):,.0f} "
              f"| {ratio([head[r]['rps'] / base[r]['rps'] for r in rounds])} "
              f"| {statistics.median(cpu(base[r]) for r in rounds):.1f} | {statistics.median(cpu(head[r]) for r in rounds):.1f} "
              f"| {ratio([cpu(head[r]) / cpu(base[r]) for r in rounds])} |")
print()
print("Medians over the rounds where both ran; each ratio is the median of the per-round ratios, with their")
print("range in brackets (above 1: head serves more requests per second, or spends more CPU per request).")
PY
    fi
} >"$SUMMARY"
cat "$SUMMARY"
log "results: $RESULTS"
log "summary: $SUMMARY"

if ((failed_runs > 0)); then
    log "$failed_runs run(s) failed"
    exit 1
fi
