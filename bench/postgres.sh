#!/usr/bin/env bash
# MicroBench with its users, sign-in throttle and revoked sessions in PostgreSQL (B) against the
# same build with bench/credentials.yml (A), side by side (bench/compare.sh): sign-ins per second
# (bench1...bench8 with the right password, bcrypt cost 12) and signed-in GET /page per second.
# Usage: bench/postgres.sh   (env: ROUNDS=5, DURATION=6 seconds per /page round,
#                             SIGNIN_DURATION=10 seconds per sign-in round, SKIP_BUILD=1)
# Runs inside a throwaway PostgreSQL of its own (Tests/Postgres/with-postgres.sh). See
# bench/README.md ("PostgreSQL against the YAML store").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -z "${MICRO_TEST_DATABASE_URL:-}" ]; then
    exec bash "$ROOT/Tests/Postgres/with-postgres.sh" bash "$ROOT/bench/postgres.sh" "$@"
fi
ROUNDS="${ROUNDS:-5}"
DURATION="${DURATION:-6}"
SIGNIN_DURATION="${SIGNIN_DURATION:-10}"

source "$ROOT/bench/micro-bench.sh"
micro_bench_build "$ROOT"
BIN="$MICRO_BENCH"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/micro-postgres-bench.XXXXXX")"
export B_ENV="MICRO_DATABASE_URL=$MICRO_TEST_DATABASE_URL"
export ROUNDS

load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "== Sign-ins: A the YAML store, B PostgreSQL =="
SIGN_INS=1 CONNECTIONS=8 DURATION="$SIGNIN_DURATION" bash "$ROOT/bench/compare.sh" "$BIN" "$BIN" /signin | tee "$OUT/signins.txt"
echo
echo "== GET /page signed in as bench1: A the YAML store, B PostgreSQL =="
SIGN_IN=1 DURATION="$DURATION" bash "$ROOT/bench/compare.sh" "$BIN" "$BIN" /page | tee "$OUT/page.txt"
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"

# One row from compare.sh's medians in $1.
row() {
    awk -v what="$2" '
        /^Median B\/A CPU per request:/ { cpu = $6 }
        /^Median req\/s:/ { a = $4; b = $6; gsub(",|;", "", a); gsub(",|;", "", b); ratio = $10 }
        END { printf "| %s | %s | %s | %s | %s |\n", what, a, b, ratio, cpu }
    ' "$1"
}
echo
echo "MicroBench, both at once on CPU 0, wrk on CPU 1, $ROUNDS rounds each; medians. Load average $load_before before, $load_after after ($(nproc) cores)."
echo
echo "| load | A: YAML, per s | B: PostgreSQL, per s | B/A per s | B/A CPU per request |"
echo "| --- | ---: | ---: | ---: | ---: |"
row "$OUT/signins.txt" "POST /signin, 8 connections, cost 12 (successful sign-ins)"
row "$OUT/page.txt" "GET /page signed in, 64 connections"
echo
echo "Target: /page with PostgreSQL within 5% of YAML (B/A per s at least 0.95). CPU per request is"
echo "the app's own: PostgreSQL's server process is not counted. Output in $OUT"
