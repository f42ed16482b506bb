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

"$SWIFT" build -c release --product rebound >&2
"$SWIFT" build -c release --product transport-benchmark >&2
BIN=$("$SWIFT" build -c release --show-bin-path)

# shellcheck source=scripts/loopback-nginx.sh
source scripts/loopback-nginx.sh
start_loopback_nginx
URL=$LOOPBACK_URL

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
