#!/usr/bin/env bash
# Counts the instructions of one successful in-process call through the three built-in handlers
# (`transport-benchmark --client decision --workload fixed`), with callgrind: a count, unlike a
# time, is the same on every run and on a shared machine.
#
#   scripts/instructions.sh            # prints {"instructions_per_call": N, ...}
#   KEEP=1 scripts/instructions.sh     # keeps the callgrind files in .build-valgrind/ to annotate
#   NETWORK=1 scripts/instructions.sh  # also pipeline-ab's two clients over the real transport
#
# NETWORK=1 also counts the instructions of the whole process per request for the pipeline and
# for rebound-auth (the same request on the bare transport), 16 in flight against nginx on
# loopback (installed with apt when missing), 1,000 and 3,000 requests each: their ratio is
# pipeline-ab's without the machine's noise, since at 16 in flight the client is bound by its
# processor. About 45 s more.
#
# It runs the benchmark twice, with 2,000 and 6,000 calls after the same warm-up, and divides the
# difference of the two totals by the 4,000 calls between them, so that start-up and warm-up
# cancel out. Debian 12's valgrind (3.19) stops on the Swift binaries, so Debian 13's (3.24) is
# fetched into .build-valgrind/ without being installed (scripts/debian-package.sh).
# libdispatch waits in sigsuspend() with its mask in read-only memory, where valgrind writes; a
# small preloaded library (made here with cc) hands the kernel a copy of the mask instead.
set -euo pipefail
cd "$(dirname "$0")/.."

root="$PWD/.build-valgrind"
valgrind="$root/usr/bin/valgrind"
if [ ! -x "$valgrind" ]; then
    scripts/debian-package.sh trixie valgrind "$root"
fi
export VALGRIND_LIB="$root/usr/libexec/valgrind"

shim="$root/sigsuspend-copy.so"
if [ ! -e "$shim" ]; then
    cat >"$root/sigsuspend-copy.c" <<'EOF'
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

// sigsuspend() with a copy of the mask on the stack: valgrind writes to the mask it is given.
int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, sizeof(unsigned long));
}
EOF
    cc -shared -fPIC -O2 -o "$shim" "$root/sigsuspend-copy.c"
fi

SWIFT=${SWIFT:-swift}
"$SWIFT" build -c release --product transport-benchmark >&2
binary="$("$SWIFT" build -c release --show-bin-path)/transport-benchmark"

count() {
    local calls=$1 out="$root/callgrind.$1.out"
    LD_PRELOAD="$shim" "$valgrind" --tool=callgrind --callgrind-out-file="$out" \
        "$binary" --client decision --workload fixed --url http://127.0.0.1/ --expect-bytes 0 \
        --requests "$calls" --warmup 0 >/dev/null 2>"$root/callgrind.$1.log" || {
        tail -20 "$root/callgrind.$1.log" >&2
        return 1
    }
    sed -n 's/^summary: //p' "$out"
}

small=$(count 2000)
large=$(count 6000)
python3 -c '
import json, sys
small, large = int(sys.argv[1]), int(sys.argv[2])
print(json.dumps({"workload": "fixed", "calls": 4000, "instructions_per_call": round((large - small) / 4000)}))' \
    "$small" "$large"

if [ -n "${NETWORK:-}" ]; then
    if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q nginx-light >&2 || { apt-get update -q >&2 && apt-get install -y -q nginx-light >&2; }
    fi
    # shellcheck source=scripts/loopback-nginx.sh
    source scripts/loopback-nginx.sh
    # Pinned as scripts/benchmark-transport.sh pins them, given two cores or more: nginx on the
    # last, the client on the first.
    pin=()
    if command -v taskset >/dev/null && (($(nproc) >= 2)); then
        pin=(taskset -c 0)
        start_loopback_nginx $(($(nproc) - 1))
    else
        start_loopback_nginx
    fi

    network() {
        local client=$1 requests=$2 out="$root/callgrind.$1.$2.out"
        LD_PRELOAD="$shim" "${pin[@]}" "$valgrind" --tool=callgrind --callgrind-out-file="$out" \
            "$binary" --client "$client" --workload concurrent16 --url "$LOOPBACK_URL" \
            --expect-bytes "$LOOPBACK_BYTES" --requests "$requests" --warmup 0 >/dev/null 2>"$root/callgrind.$1.$2.log" || {
            tail -20 "$root/callgrind.$1.$2.log" >&2
            return 1
        }
        sed -n 's/^summary: //p' "$out"
    }
    bare_small=$(network rebound-auth 1000)
    bare_large=$(network rebound-auth 3000)
    pipeline_small=$(network pipeline 1000)
    pipeline_large=$(network pipeline 3000)
    python3 -c '
import json, sys
bare = (int(sys.argv[2]) - int(sys.argv[1])) / 2000
pipeline = (int(sys.argv[4]) - int(sys.argv[3])) / 2000
print(json.dumps({"workload": "concurrent16", "requests": 2000, "rebound_auth_instructions_per_request": round(bare),
                  "pipeline_instructions_per_request": round(pipeline), "ratio": round(bare / pipeline, 3)}))' \
        "$bare_small" "$bare_large" "$pipeline_small" "$pipeline_large"
fi
if [ -z "${KEEP:-}" ]; then
    rm -f "$root"/callgrind.*.out "$root"/callgrind.*.log
else
    echo "instructions.sh: callgrind files in $root (callgrind_annotate: $root/usr/bin/callgrind_annotate)" >&2
fi
