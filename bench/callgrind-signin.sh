#!/usr/bin/env bash
# A sign-in's instructions with the account pages (Accounts: the session registry and the
# activity log, each sign-in writing to both) against without them: MicroBench under callgrind
# twice, the second time with MICRO_BENCH_ACCOUNTS. Counted: POST /signin alone (the forms are
# fetched before, uncounted), bench1...bench8 of bench/credentials.yml in turn, the right
# password at the file's bcrypt cost (12, the default), every thread (bcrypt's, the database's).
# Counts repeat from run to run, unlike times on a shared machine.
#
# Usage: bench/callgrind-signin.sh [BINARY]  (default: bench/.build/release/MicroBench, built first)
# Env:   SIGN_INS=8 measured, WARMUP_SIGN_INS=2 (not measured), PORT=18402, SKIP_BUILD=1,
#        ACCOUNTS=sqlite:FILE (a new file in the output folder, as SampleApp keeps them; or memory)
# See bench/README.md ("A sign-in's instructions, with the account pages").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SIGN_INS="${SIGN_INS:-8}"
WARMUP_SIGN_INS="${WARMUP_SIGN_INS:-2}"
PORT="${PORT:-18402}"
source "$ROOT/bench/lib.sh"

[[ "$SIGN_INS" =~ ^[1-9][0-9]*$ ]] || fail "SIGN_INS must be 1 or more"
command -v valgrind >/dev/null 2>&1 || fail "valgrind is needed (apt-get install valgrind)"
command -v python3 >/dev/null 2>&1 || fail "python3 is needed (the client)"

if [ $# -ge 1 ]; then
    BINARY="$(realpath "$1")"
else
    [ "${SKIP_BUILD:-0}" = 1 ] || swift build -c release --package-path "$ROOT/bench" --product MicroBench
    BINARY="$(swift build -c release --package-path "$ROOT/bench" --show-bin-path)/MicroBench"
fi
[ -x "$BINARY" ] || fail "$BINARY is not an executable"

OUT="$(mktemp -d "${TMPDIR:-/tmp}/micro-callgrind-signin.XXXXXX")"
ACCOUNTS="${ACCOUNTS:-sqlite:$OUT/accounts.db}"
SERVER=""
cleanup() { stop_pid_in SERVER; }
trap cleanup EXIT INT TERM
cd "$ROOT"
# Valgrind 3.19 cannot read a Swift build's DWARF 5: a copy without debug sections (see callgrind.sh).
objcopy --strip-debug "$BINARY" "$OUT/MicroBench"
control() { callgrind_control "$@" "$SERVER" >>"$OUT/control.log" 2>&1; }

# Profiles $SIGN_INS sign-ins on MicroBench started with the environment words after $1 (its name).
profile() {
    local name="$1"
    shift
    SWIFT_DETERMINISTIC_HASHING=1 NIO_SINGLETON_GROUP_LOOP_COUNT=1 MICRO_SESSION_SECRET="$(random_secret)" MICRO_ENV=production PORT="$PORT" \
        env "$@" valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/$name.out" \
        "$OUT/MicroBench" >"$OUT/$name.log" 2>&1 &
    SERVER=$!
    wait_ready "$PORT" "$SERVER" || fail "MicroBench ($name) did not start under valgrind; see $OUT/$name.log"
    python3 "$ROOT/bench/callgrind-signin-client.py" forms "$PORT" "$WARMUP_SIGN_INS" "$OUT/warmup-$name" || fail "forms failed"
    python3 "$ROOT/bench/callgrind-signin-client.py" post "$PORT" "$OUT/warmup-$name" || fail "the warm-up sign-ins failed; see $OUT/$name.log"
    python3 "$ROOT/bench/callgrind-signin-client.py" forms "$PORT" "$SIGN_INS" "$OUT/forms-$name" || fail "forms failed"
    control -i on
    control -z
    python3 "$ROOT/bench/callgrind-signin-client.py" post "$PORT" "$OUT/forms-$name" || fail "the sign-ins failed; see $OUT/$name.log"
    control --dump=signin
    control -i off
    stop_pid_in SERVER
    local file
    file="$(ls "$OUT/$name.out."* | head -n1)"
    [ -s "$file" ] || fail "no profile for $name in $OUT"
    mv "$file" "$OUT/callgrind.out-$name"
    awk '/^totals:/ { print $2 }' "$OUT/callgrind.out-$name" >"$OUT/$name.total"
}

echo "MicroBench: $BINARY"
echo "valgrind --tool=callgrind, $SIGN_INS sign-ins (POST /signin, bcrypt cost 12) after $WARMUP_SIGN_INS unmeasured"
echo
profile without MICRO_BENCH_ACCOUNTS=
profile with "MICRO_BENCH_ACCOUNTS=$ACCOUNTS"
without="$(cat "$OUT/without.total")"
with="$(cat "$OUT/with.total")"
echo "| server | instructions | per sign-in |"
echo "| --- | ---: | ---: |"
echo "| without the account pages | $without | $((without / SIGN_INS)) |"
echo "| with Accounts ($ACCOUNTS) | $with | $((with / SIGN_INS)) |"
echo
awk -v a="$without" -v b="$with" -v n="$SIGN_INS" 'BEGIN {
    printf "With/without: %.4f (%+d instructions per sign-in)\n", b / a, (b - a) / n
}'
echo "Profiles in $OUT"
