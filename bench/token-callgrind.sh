#!/usr/bin/env bash
# What a request signed in by an API token costs against one signed in by a session cookie:
# MicroBench with MICRO_BENCH_TOKENS (users in SQLite, the account pages, one token) under
# valgrind's callgrind, serving GET /api/me (JSON, the signed-in user's name) over one
# keep-alive connection, first with bench1's session cookie, then with bench1's token. Counts of
# instructions repeat from run to run, unlike times on a shared machine.
#
# Usage: bench/token-callgrind.sh [BINARY]   (default: bench/.build/release/MicroBench, built first)
# Env:   REQUESTS=2000 (measured), WARMUP_REQUESTS=300 (not measured), PORT=18402, SKIP_BUILD=1
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REQUESTS="${REQUESTS:-2000}"
WARMUP_REQUESTS="${WARMUP_REQUESTS:-300}"
PORT="${PORT:-18402}"
source "$ROOT/bench/lib.sh"

command -v valgrind >/dev/null 2>&1 || { echo "Installing valgrind..."; apt-get update; apt-get install -y valgrind; }
BIN="$(swift build -c release --package-path "$ROOT/bench" --show-bin-path)"
if [ "${SKIP_BUILD:-0}" != 1 ] && [ $# -lt 1 ]; then
    swift build -c release --package-path "$ROOT/bench" --product MicroBench
fi
if [ $# -ge 1 ]; then BINARY="$(realpath "$1")"; else BINARY="$BIN/MicroBench"; fi
[ -x "$BINARY" ] || fail "$BINARY is not an executable"

OUT="$(mktemp -d "${TMPDIR:-/tmp}/micro-token-callgrind.XXXXXX")"
mkdir "$OUT/data"
SERVER=""
cleanup() { stop_pid_in SERVER; }
trap cleanup EXIT INT TERM
cd "$ROOT"

# As bench/callgrind.sh runs it: a copy without debug sections, one event loop, the
# instrumentation off until the warm-up is done, Swift's hashing unseeded.
objcopy --strip-debug "$BINARY" "$OUT/MicroBench"
SWIFT_DETERMINISTIC_HASHING=1 NIO_SINGLETON_GROUP_LOOP_COUNT=1 MICRO_SESSION_SECRET="$(random_secret)" MICRO_ENV=production \
    PORT="$PORT" MICRO_BENCH_TOKENS="$OUT/data" \
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/MicroBench.out" \
    "$OUT/MicroBench" >"$OUT/MicroBench.log" 2>&1 &
SERVER=$!
wait_ready "$PORT" "$SERVER" || fail "MicroBench did not start under valgrind; see $OUT/MicroBench.log"
control() { callgrind_control "$@" "$SERVER" >>"$OUT/control.log" 2>&1; }

part=0
# Profiles $REQUESTS requests of GET /api/me carrying $2 (a cookie or an Authorization header)
# after $WARMUP_REQUESTS unmeasured ones; prints a row and leaves the count per request in $PER.
profile() {
    local name="$1" credential="$2" file total
    python3 "$ROOT/bench/callgrind-client.py" "$PORT" /api/me "$WARMUP_REQUESTS" "$credential" >/dev/null
    control -i on
    control -z
    python3 "$ROOT/bench/callgrind-client.py" "$PORT" /api/me "$REQUESTS" "$credential" >/dev/null
    control --dump="$name"
    control -i off
    part=$((part + 1))
    file="$OUT/MicroBench.out.$part"
    [ -s "$file" ] || fail "no profile for $name in $OUT"
    mv "$file" "$OUT/callgrind.out-$name"
    total="$(awk '/^totals:/ { print $2 }' "$OUT/callgrind.out-$name")"
    PER=$((total / REQUESTS))
    echo "| GET /api/me, $name | $total | $PER |"
}

echo "MicroBench: $BINARY (MICRO_BENCH_TOKENS)"
echo "valgrind --tool=callgrind, one keep-alive connection, $REQUESTS requests each after $WARMUP_REQUESTS unmeasured"
echo
echo "| request | instructions | per request |"
echo "| --- | ---: | ---: |"
cookie="$(micro_sign_in "$PORT" "$OUT" /api/me)"
profile session-cookie "$cookie"
COOKIE_PER=$PER
profile api-token "Authorization: Bearer $(cat "$OUT/data/token")"
TOKEN_PER=$PER
echo
python3 -c "print(f'token / cookie: {$TOKEN_PER / $COOKIE_PER:.3f}')"
echo "Profiles in $OUT (bench/callgrind-breakdown.py --top 60 FILE $REQUESTS)"
