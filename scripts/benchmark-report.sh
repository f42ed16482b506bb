#!/usr/bin/env bash
# `rebound report --json` (release build) against the plain Python baseline, on a generated corpus.
#
# Usage: scripts/benchmark-report.sh
#        REPORTS=100000 SESSIONS=1000 ROUNDS=1 scripts/benchmark-report.sh
#
#   REPORTS=500000 SESSIONS=5000 CHAINS=300 BUILDS=6 HOSTS=20 TORN=100 FILES=4 SEED=1
#                     the corpus (scripts/generate-report-corpus.py): FILES files in one
#                     directory, each host's sessions in one file
#   CORPUS=DIR        where it goes (default: .build-benchmark/report-corpus-<parameters>); kept,
#                     so a second run does not generate it again
#   ROUNDS=3          runs of each, alternating; the table shows each run
#   SCRATCH=DIR       scratch path of the release build (default: .build)
#
# Each run is timed by /usr/bin/time -v: wall-clock seconds, MB/s (10^6 bytes of the corpus per
# second) and the maximum resident set size. rebound reads the directory; Python reads its files.
# Both run on one core (taskset -c 0), which is what rebound uses anyway.
set -euo pipefail
cd "$(dirname "$0")/.."

REPORTS=${REPORTS:-500000}
SESSIONS=${SESSIONS:-5000}
CHAINS=${CHAINS:-300}
BUILDS=${BUILDS:-6}
HOSTS=${HOSTS:-20}
TORN=${TORN:-100}
FILES=${FILES:-4}
SEED=${SEED:-1}
ROUNDS=${ROUNDS:-3}
SCRATCH=${SCRATCH:-.build}
CORPUS=${CORPUS:-.build-benchmark/report-corpus-$REPORTS-$SESSIONS-$CHAINS-$BUILDS-$HOSTS-$TORN-$FILES-$SEED}

if [[ ! -d "$CORPUS" ]]; then
    echo "Generating $REPORTS reports into $CORPUS..." >&2
    mkdir -p "$(dirname "$CORPUS")"
    scripts/generate-report-corpus.py --reports "$REPORTS" --sessions "$SESSIONS" --chains "$CHAINS" \
        --builds "$BUILDS" --hosts "$HOSTS" --torn "$TORN" --files "$FILES" --seed "$SEED" \
        -o "$CORPUS.partial"
    mv "$CORPUS.partial" "$CORPUS"
fi

echo "Building rebound (release)..." >&2
swift build -c release --product rebound --scratch-path "$SCRATCH" >&2
REBOUND="$SCRATCH/release/rebound"

BYTES=$(cat "$CORPUS"/*.jsonl | wc -c)
PIN=()
if command -v taskset >/dev/null; then PIN=(taskset -c 0); fi

# Runs "$@" under /usr/bin/time -v and prints: seconds, MB/s, max RSS in MiB.
measure() {
    local timing
    timing=$(mktemp)
    "${PIN[@]}" /usr/bin/time -v "$@" >/dev/null 2>"$timing"
    python3 - "$timing" "$BYTES" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
bytes_ = int(sys.argv[2])
elapsed = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
seconds = 0.0
for part in elapsed.split(":"):
    seconds = seconds * 60 + float(part)
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
status = re.search(r"Exit status: (\d+)", text).group(1)
print(f"{seconds:.2f} {bytes_ / 1e6 / seconds:.0f} {rss / 1024:.0f} {status}")
PY
    rm -f "$timing"
}

printf 'Corpus: %s (%d reports, %d sessions, %d chains, %d builds, %d hosts, %d torn lines, %d files, %d MB)\n\n' \
    "$CORPUS" "$REPORTS" "$SESSIONS" "$CHAINS" "$BUILDS" "$HOSTS" "$TORN" "$FILES" "$((BYTES / 1000000))"
echo "| run | tool | seconds | MB/s | max RSS (MiB) | exit |"
echo "|---|---|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
    read -r seconds rate rss status < <(measure "$REBOUND" report --json "$CORPUS")
    echo "| $round | rebound report --json | $seconds | $rate | $rss | $status |"
    read -r seconds rate rss status < <(measure python3 scripts/report-baseline.py "$CORPUS"/*.jsonl)
    echo "| $round | scripts/report-baseline.py | $seconds | $rate | $rss | $status |"
done
