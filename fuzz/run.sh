#!/usr/bin/env bash
# Builds the libFuzzer targets (with the address sanitizer and libFuzzer's coverage) and runs
# each one for SECONDS over a copy of its corpus, one after the other. Fails on any crash, leak
# or timeout.
#
# Usage: fuzz/run.sh [SECONDS]        (default 60 per target)
# Env:   FUZZ_TARGETS="FuzzCookies FuzzMultipart"   run only these
#        SKIP_BUILD=1                                use the last build
#        RELEASE=1    an optimized build in .build-fuzz (for long runs) instead of the address
#                     sanitizer's debug build in .build-asan (CI's, shared with its test suite)
#        MERGE=1      fold what the run found into fuzz/corpus/<Target>/ (-set_cover_merge=1: inputs
#                     covering every feature are kept, few of them; the hand-named seeds stay)
#        FUZZ_OUT=dir keep logs and crash artifacts there (default: a temp dir, kept on failure)
# See fuzz/README.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
FUZZ="$ROOT/fuzz"
SECONDS_PER_TARGET="${1:-60}"
TARGETS=(${FUZZ_TARGETS:-FuzzFormDecoding FuzzMultipart FuzzCookies FuzzSessionCookie FuzzRoutePattern FuzzRouter FuzzYamlUsers FuzzHtmlEscape})
# The package has the fuzz targets only with MICRO_FUZZ=1 (Package.swift), here of the
# framework alone, as the address sanitizer's build is (.ci/flags).
export MICRO_FUZZ=1 MICRO_SCOPE=framework
source .ci/flags
if [ "${RELEASE:-0}" = 1 ]; then
    BUILD_FLAGS=(-c release --sanitize=address --scratch-path .build-fuzz "${FUZZER_COVERAGE[@]}")
else
    BUILD_FLAGS=("${ADDRESS_SANITIZER[@]}")
fi

if [ "${SKIP_BUILD:-0}" = 1 ]; then
    echo "SKIP_BUILD=1: using the fuzzers built last time."
else
    for target in "${TARGETS[@]}"; do
        echo "Building $target..."
        swift build "${BUILD_FLAGS[@]}" --product "$target"
    done
fi
BIN="$(swift build "${BUILD_FLAGS[@]}" --show-bin-path)"

OUT="${FUZZ_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/micro-fuzz.XXXXXX")}"
mkdir -p "$OUT"
failed=()
summary=()

for target in "${TARGETS[@]}"; do
    # libFuzzer adds what it finds to the first corpus folder: a copy, so the repository
    # stays clean.
    corpus="$OUT/$target-corpus"
    rm -rf "$corpus"
    mkdir -p "$corpus" "$OUT/artifacts"
    cp -R "$FUZZ/corpus/$target/." "$corpus/"
    dict=()
    [ -f "$FUZZ/dict/$target.dict" ] && dict=(-dict="$FUZZ/dict/$target.dict")
    log="$OUT/$target.log"
    echo "== $target: ${SECONDS_PER_TARGET}s over $(ls "$corpus" | wc -l) inputs (log: $log)"
    status=0
    # Leaks are failures. Swift's own crash backtracer is off: libFuzzer reports the crash
    # (and the backtracer trips the address sanitizer).
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS="detect_leaks=1" \
        "$BIN/$target" "${dict[@]}" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$OUT/artifacts/$target-" "$corpus" >"$log" 2>&1 || status=$?

    executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)"
    coverage="$(grep -o 'cov: [0-9]* ft: [0-9]*' "$log" | tail -1 || true)"
    if [ "$status" -ne 0 ]; then
        failed+=("$target")
        echo "!! $target failed (exit $status). The end of its log:"
        tail -40 "$log"
        ls "$OUT/artifacts" | sed -n "s|^\($target-.*\)|   artifact: $OUT/artifacts/\1|p"
    elif [ "${MERGE:-0}" = 1 ]; then
        merged="$OUT/$target-merged"
        rm -rf "$merged"
        mkdir -p "$merged"
        # The hand-written seeds (named; libFuzzer's own inputs are named by their SHA-1) stay.
        for input in "$FUZZ/corpus/$target"/*; do
            [[ "$(basename "$input")" =~ ^[0-9a-f]{40}$ ]] || cp "$input" "$merged/"
        done
        "$BIN/$target" -set_cover_merge=1 "$merged" "$corpus" >"$OUT/$target-merge.log" 2>&1
        rm -rf "$FUZZ/corpus/$target"
        cp -R "$merged" "$FUZZ/corpus/$target"
        echo "   merged corpus: $(ls "$FUZZ/corpus/$target" | wc -l) inputs in fuzz/corpus/$target"
    fi
    summary+=("$(printf '%-18s %6ss %12s execs %8s exec/s   %-22s %s' "$target" "$SECONDS_PER_TARGET" \
        "${executions:-?}" "${rate:-?}" "${coverage:-cov: ?}" "$([ "$status" -eq 0 ] && echo ok || echo FAILED)")")
done

echo
echo "target             time         executions     exec/s   coverage               result"
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "Failed: ${failed[*]} (logs and artifacts in $OUT)" >&2
    exit 1
fi
[ -n "${FUZZ_OUT:-}" ] || rm -rf "$OUT"
