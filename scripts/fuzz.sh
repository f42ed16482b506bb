#!/usr/bin/env bash
# Builds the fuzz targets with libFuzzer and the address sanitizer, in a scratch path of their own
# (.build-fuzz), and runs each for the given number of seconds; prints the executions each ran.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      # 60 s each, every target of Fuzz/Corpus by default
#
# A target starts from its committed seeds (Fuzz/Corpus/TARGET, never written to) and the inputs
# earlier runs found (.build-fuzz/corpus/TARGET). An input that crashes it, breaks its contract,
# or takes longer than 10 s is written to .build-fuzz/artifacts/TARGET/, and the script fails;
# `swift run rebound-fuzz TARGET FILE` replays it without libFuzzer. Logs: .build-fuzz/logs/.
set -uo pipefail

seconds="${1:-60}"
shift
swift="${SWIFT:-swift}"
scratch=.build-fuzz
flags=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DREBOUND_FUZZING)

"$swift" build --product rebound-fuzz --scratch-path "$scratch" "${flags[@]}" || exit 1
binary="$("$swift" build --product rebound-fuzz --scratch-path "$scratch" "${flags[@]}" --show-bin-path)/rebound-fuzz"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(ls Fuzz/Corpus)
fi

failed=0
printf '\n%-20s %12s %10s  %s\n' target executions "exec/s" result
for target in "${targets[@]}"; do
    mkdir -p "$scratch/corpus/$target" "$scratch/artifacts/$target" "$scratch/logs"
    log="$scratch/logs/$target.log"
    # Swift's own backtracer would read a crashed process's memory under the address sanitizer.
    REBOUND_FUZZ_TARGET="$target" SWIFT_BACKTRACE=enable=no \
        "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$scratch/artifacts/$target/" "$scratch/corpus/$target" "Fuzz/Corpus/$target" \
        >"$log" 2>&1 </dev/null
    status=$?
    runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -n 1)
    speed=$(grep -Eo 'stat::average_exec_per_sec: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -n 1)
    if [ "$status" -eq 0 ]; then
        result=clean
    else
        result="FAILED (exit $status): $log, $(ls "$scratch/artifacts/$target" | tr '\n' ' ')"
        failed=1
    fi
    printf '%-20s %12s %10s  %s\n' "$target" "${runs:-?}" "${speed:-?}" "$result"
done
if [ "$failed" -ne 0 ]; then
    echo
    echo "== a fuzz target failed; the last lines of its log =="
    for target in "${targets[@]}"; do
        grep -E 'Fatal error|ERROR: |SUMMARY|Test unit written' "$scratch/logs/$target.log" | head -n 5
    done
fi
exit "$failed"
