#!/usr/bin/env bash
# Where the instructions of a request go: MicroBench under valgrind's callgrind, serving a fixed
# number of GET /hello and signed-in GET /page requests over one keep-alive connection. The
# counts repeat from run to run (to well under 1%) whatever else the machine does, unlike times.
#
# The raw SwiftNIO server's /hello is profiled the same way, as the floor: what NIO itself costs;
# and swift-mustache alone rendering /page's page and layout (InProcessBench mustache, with the
# library's own escaping), the floor under the render.
#
# Usage: bench/callgrind.sh [BINARY]    (default: bench/.build/release/MicroBench, built first)
# Env:   REQUESTS=2000 per path (measured), WARMUP_REQUESTS=300 per path (not measured),
#        PATHS="/hello /page", PORT=18401, SKIP_BUILD=1, RAW=0 to skip the two floors
# Prints instructions per request for each path and the breakdown of bench/callgrind-breakdown.py;
# the profiles (callgrind.out-*) stay in the folder it names, for callgrind_annotate.
# See bench/README.md ("Where a request's instructions go").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REQUESTS="${REQUESTS:-2000}"
WARMUP_REQUESTS="${WARMUP_REQUESTS:-300}"
PATHS=(${PATHS:-/hello /page})
PORT="${PORT:-18401}"
source "$ROOT/bench/lib.sh"

[[ "$REQUESTS" =~ ^[1-9][0-9]*$ ]] || fail "REQUESTS must be 1 or more"
command -v valgrind >/dev/null 2>&1 || { echo "Installing valgrind..."; apt-get update; apt-get install -y valgrind; }
command -v python3 >/dev/null 2>&1 || fail "python3 is needed (the client and the breakdown)"
command -v curl >/dev/null 2>&1 || fail "curl is needed"

BIN="$(swift build -c release --package-path "$ROOT/bench" --show-bin-path)"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
    echo "Building MicroBench and RawNioServer (release)..."
    [ $# -ge 1 ] || swift build -c release --package-path "$ROOT/bench" --product MicroBench
    [ "${RAW:-1}" = 0 ] || swift build -c release --package-path "$ROOT/bench" --product RawNioServer
    [ "${RAW:-1}" = 0 ] || swift build -c release --package-path "$ROOT/bench" --product InProcessBench
fi
if [ $# -ge 1 ]; then BINARY="$(realpath "$1")"; else BINARY="$BIN/MicroBench"; fi
[ -x "$BINARY" ] || fail "$BINARY is not an executable"

OUT="$(mktemp -d "${TMPDIR:-/tmp}/micro-callgrind.XXXXXX")"
SERVER=""
cleanup() {
    if [ -n "$SERVER" ]; then
        kill "$SERVER" 2>/dev/null || true
        wait "$SERVER" 2>/dev/null || true
    fi
}
trap cleanup EXIT INT TERM

# Starts server binary $1 (named $2) under callgrind. Valgrind 3.19 cannot read the DWARF 5 of
# a Swift build ("possibly corrupted debuginfo"): it runs a copy with the symbol table but no
# debug sections (functions, no source lines). One event loop, as the wall-clock scripts run
# it; instrumentation off until a warm-up is done (start-up and the sign-in's bcrypt are not
# counted); Swift's hashing unseeded, so that dictionaries probe alike from run to run.
start_profiled() {
    objcopy --strip-debug "$1" "$OUT/$2"
    SWIFT_DETERMINISTIC_HASHING=1 NIO_SINGLETON_GROUP_LOOP_COUNT=1 MICRO_SESSION_SECRET="$(random_secret)" MICRO_ENV=production PORT="$PORT" \
        valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$OUT/$2.out" \
        "$OUT/$2" >"$OUT/$2.log" 2>&1 &
    SERVER=$!
    wait_ready "$PORT" "$SERVER" || fail "$2 did not start under valgrind; see $OUT/$2.log"
}
stop_profiled() {
    kill "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    SERVER=""
}

# Profiles $REQUESTS requests of GET $2 (cookie $3, possibly empty) on the running server $1,
# after $WARMUP_REQUESTS unmeasured ones; the profile is $OUT/callgrind.out-$1-PATH.
part=0
profile() {
    local name="$1" path="$2" cookie="$3" file total
    python3 "$ROOT/bench/callgrind-client.py" "$PORT" "$path" "$WARMUP_REQUESTS" "$cookie" >/dev/null
    control -i on
    control -z
    python3 "$ROOT/bench/callgrind-client.py" "$PORT" "$path" "$REQUESTS" "$cookie" >/dev/null
    control --dump="$path"
    control -i off
    part=$((part + 1))
    file="$OUT/$name.out.$part"
    [ -s "$file" ] || fail "no profile for $path in $OUT"
    mv "$file" "$OUT/callgrind.out-$name${path//\//-}"
    total="$(awk '/^totals:/ { print $2 }' "$OUT/callgrind.out-$name${path//\//-}")"
    echo "| $name | GET $path | $total | $((total / REQUESTS)) |"
}
cd "$ROOT"

control() { callgrind_control "$@" "$SERVER" >>"$OUT/control.log" 2>&1; }

echo "MicroBench: $BINARY"
echo "valgrind --tool=callgrind, one keep-alive connection, $REQUESTS requests per path after $WARMUP_REQUESTS unmeasured"
echo
echo "| server | path | instructions | per request |"
echo "| --- | --- | ---: | ---: |"
start_profiled "$BINARY" MicroBench
for path in "${PATHS[@]}"; do
    cookie=""
    # Signed in afresh for the path (a cookie is renewed a minute after it was issued).
    if [ "$path" = /page ]; then cookie="$(micro_sign_in "$PORT" "$OUT")"; fi
    profile MicroBench "$path" "$cookie"
done
stop_profiled
part=0
if [ "${RAW:-1}" != 0 ]; then
    start_profiled "$BIN/RawNioServer" RawNioServer
    profile RawNioServer /hello ""
    stop_profiled
    # Only the render loop is counted (--toggle-collect): not the start-up, not the templates' parsing.
    objcopy --strip-debug "$BIN/InProcessBench" "$OUT/InProcessBench"
    SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --toggle-collect='*mustacheRenders*' \
        --callgrind-out-file="$OUT/callgrind.out-mustache" "$OUT/InProcessBench" mustache "$REQUESTS" >"$OUT/mustache.log" 2>&1 ||
        fail "InProcessBench mustache failed; see $OUT/mustache.log"
    total="$(awk '/^totals:/ { print $2 }' "$OUT/callgrind.out-mustache")"
    echo "| swift-mustache alone (its own escaping) | /page's page and layout | $total | $((total / REQUESTS)) |"
fi
echo
for path in "${PATHS[@]}"; do
    python3 "$ROOT/bench/callgrind-breakdown.py" "$OUT/callgrind.out-MicroBench${path//\//-}" "$REQUESTS" "Micro, GET $path"
    echo
done
echo "Profiles in $OUT (callgrind_annotate --inclusive=yes FILE | swift demangle --simplified, or"
echo "bench/callgrind-breakdown.py --top 60 FILE $REQUESTS)"
