#!/usr/bin/env bash
# Runs `swift test` with the given arguments and keeps its whole output in a log. When the run
# fails, it ends with the failing tests and their recorded issues, so that the last lines of a
# long CI log name what failed.
#
#   scripts/test.sh NAME [swift test arguments...]
#
# The log is .build/test-logs/NAME.log.
set -uo pipefail

name="$1"
shift
log_dir=".build/test-logs"
mkdir -p "$log_dir"
log="$log_dir/$name.log"

"${SWIFT:-swift}" test "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

# The package builds without warnings (a fresh build, as in CI, compiles every file; an
# incremental one only what changed). Dependencies' warnings are theirs, under .build/.
warnings=$(grep -E "^$PWD/(Sources|Tests|Examples|Benchmarks)/[^:]+:[0-9]+:[0-9]+: warning:" "$log" | sort -u)
if [ -n "$warnings" ]; then
    echo
    echo "== $name: the build has warnings; the package must build without any =="
    echo "$warnings"
fi

if [ "$status" -ne 0 ]; then
    echo
    echo "== $name: swift test failed with exit status $status; what failed (whole log: $log) =="
    # Swift Testing marks failures with ✘ and a recorded issue's details with ↳; XCTest and the
    # sanitizers write "error:", "failed" and "ThreadSanitizer" lines.
    grep -E '✘|↳|error:|: failed|ThreadSanitizer|Fatal error|Segmentation|signal' "$log" \
        | grep -v -E '^\s*$|Testing Library Version|Target Platform' | tail -n 14
    # A crash names the thread that crashed; its first frames say where, and the test's frames
    # which test.
    if grep -q '^\*\*\* Program crashed' "$log"; then
        echo
        grep -m 1 '^\*\*\* Program crashed' "$log"
        grep -A 12 -m 1 '^Thread [0-9]* .*crashed:' "$log" | cut -c 1-220
    fi
fi
if [ "$status" -eq 0 ] && [ -n "$warnings" ]; then status=1; fi
exit "$status"
