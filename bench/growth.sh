#!/usr/bin/env bash
# How Micro's cost grows as an app grows, beside Hummingbird's, in one run: requests/s and CPU
# per request of
#   - GET /hello with 0, 100 and 1,000 more routes defined before it (EXTRA_ROUTES; the shapes of
#     bench/Sources/BenchRoutes/ExtraRoutes.swift, the same in the Hummingbird app), 64 connections;
#   - GET /hello at 64, 256 and 1,024 connections;
#   - the signed-in GET /page with a list of 3, 100 and 1,000 items (PAGE_ITEMS), 64 connections.
# Each cell starts its server afresh (pinned to CPU 0, one event loop), checks its answer, warms
# it up, and loads it with wrk on CPU 1; Micro and Hummingbird take turns cell by cell.
#
# Usage: bench/growth.sh
# Env:   DURATION=5 seconds per measured run, WARMUP=2, SKIP_BUILD=1 to reuse the last builds,
#        MICRO_PORT/PEER_PORT (18501/18502), SERVER_LOOPS=1
# See bench/README.md ("How the cost grows").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DURATION="${DURATION:-5}"
WARMUP="${WARMUP:-2}"
MICRO_PORT="${MICRO_PORT:-18501}"
PEER_PORT="${PEER_PORT:-18502}"
source "$ROOT/bench/lib.sh"

[ "$(nproc)" -ge 2 ] || fail "needs two cores (servers on CPU 0, wrk on CPU 1)"
server_loops 1
ensure_wrk
command -v curl >/dev/null 2>&1 || fail "curl is needed"
[ "$(ulimit -n)" -ge 2048 ] || ulimit -n 2048 || fail "the open-files limit ($(ulimit -n)) is too low for 1,024 connections"

if [ "${SKIP_BUILD:-0}" != 1 ]; then
    echo "Building MicroBench and HummingbirdBench (release)..."
    swift build -c release --package-path "$ROOT/bench" --product MicroBench
    swift build -c release --package-path "$ROOT/bench/peers" --product HummingbirdBench
fi
MICRO_BIN="$(swift build -c release --package-path "$ROOT/bench" --show-bin-path)/MicroBench"
PEER_BIN="$(swift build -c release --package-path "$ROOT/bench/peers" --show-bin-path)/HummingbirdBench"
for binary in "$MICRO_BIN" "$PEER_BIN"; do [ -x "$binary" ] || fail "$binary is missing (run without SKIP_BUILD=1)"; done

OUT="$(mktemp -d "${TMPDIR:-/tmp}/micro-growth.XXXXXX")"
SERVER=""
stop_server() { stop_pid_in SERVER; }
trap stop_server EXIT INT TERM
cd "$ROOT"

# Starts server $1 (micro or peer) with EXTRA_ROUTES=$2 and PAGE_ITEMS=$3.
start_server() {
    local name="$1" routes="$2" items="$3"
    if [ "$name" = micro ]; then
        MICRO_SESSION_SECRET="$(random_secret)" MICRO_ENV=production PORT="$MICRO_PORT" EXTRA_ROUTES="$routes" \
            PAGE_ITEMS="$items" taskset -c 0 "$MICRO_BIN" >>"$OUT/micro.log" 2>&1 &
    else
        PORT="$PEER_PORT" EXTRA_ROUTES="$routes" PAGE_ITEMS="$items" taskset -c 0 "$PEER_BIN" >>"$OUT/peer.log" 2>&1 &
    fi
    SERVER=$!
    wait_ready "$(port_of "$name")" "$SERVER" || fail "$name did not start; its log: $OUT/$name.log"
}
port_of() { if [ "$1" = micro ]; then echo "$MICRO_PORT"; else echo "$PEER_PORT"; fi; }

# The session cookie of bench1 signed in on server $1.
sign_in() {
    if [ "$1" = micro ]; then
        micro_sign_in "$MICRO_PORT" "$OUT"
        return
    fi
    curl -sS -o /dev/null -D "$OUT/h-peer" --data "username=bench1&password=bench-password" "http://127.0.0.1:$PEER_PORT/signin"
    cookie_in "$OUT/h-peer"
}

# One cell: server $1, path $2, connections $3, extra routes $4, page items $5. Writes
# "REQ/S CPU_MICROSECONDS SOCKET_ERRORS" to $OUT/cell and keeps wrk's output in $OUT. A
# non-2xx answer stops the run; socket errors (wrk's timeouts under 1,024 connections on a busy
# machine) are counted.
cell() {
    local name="$1" path="$2" connections="$3" routes="$4" items="$5" cookie="" file ticks requests port
    port="$(port_of "$name")"
    start_server "$name" "$routes" "$items"
    local -a headers=()
    if [ "$path" = /page ]; then
        cookie="$(sign_in "$name")"
        [ -n "$cookie" ] || fail "$name: no session cookie after signing in"
        headers=(-H "Cookie: $cookie")
    fi
    file="$OUT/$name${path//\//-}-c$connections-r$routes-i$items"
    # A 200, and for /page the list it should have, before anything is measured.
    [ "$(curl -sS -o "$file.body" -w '%{http_code}' "${headers[@]}" "http://127.0.0.1:$port$path")" = 200 ] ||
        fail "$name: GET $path did not answer 200 (body in $file.body)"
    if [ "$path" = /page ]; then
        [ "$(grep -o '<li>' "$file.body" | wc -l)" = "$items" ] || fail "$name: /page does not list $items items ($file.body)"
    fi
    taskset -c 1 wrk -t1 -c"$connections" -d"${WARMUP}s" "${headers[@]}" "http://127.0.0.1:$port$path" >/dev/null
    ticks="$(cpu_ticks "$SERVER")"
    taskset -c 1 wrk -t1 -c"$connections" -d"${DURATION}s" "${headers[@]}" "http://127.0.0.1:$port$path" >"$file.txt"
    ticks=$(($(cpu_ticks "$SERVER") - ticks))
    stop_server
    grep -q 'Non-2xx' "$file.txt" && fail "$name: GET $path had non-2xx answers under load ($file.txt)"
    requests="$(awk '/requests in/ { print $1 }' "$file.txt")"
    [ -n "$requests" ] && [ "$requests" -gt 0 ] || fail "$name: GET $path answered nothing ($file.txt)"
    awk -v t="$ticks" -v n="$requests" -v d="$DURATION" -v hz="$(getconf CLK_TCK)" '
        /Socket errors:/ { gsub(",", ""); errors += $4 + $6 + $8 + $10 }
        END { printf "%.0f %.1f %d\n", n / d, t / hz / n * 1e6, errors }
    ' "$file.txt" >"$OUT/cell"
}

# A row: its label, then the cell's parameters; Micro's cell, then Hummingbird's.
row() {
    local label="$1" micro_rps micro_cpu micro_errors peer_rps peer_cpu peer_errors note=""
    shift
    cell micro "$@"
    read -r micro_rps micro_cpu micro_errors <"$OUT/cell"
    cell peer "$@"
    read -r peer_rps peer_cpu peer_errors <"$OUT/cell"
    [ "$micro_errors$peer_errors" = 00 ] || note=" (socket errors: Micro $micro_errors, Hummingbird $peer_errors)"
    echo "| $label$note | $micro_rps | $micro_cpu µs | $peer_rps | $peer_cpu µs | $(awk -v a="$micro_rps" -v b="$peer_rps" 'BEGIN { printf "%.2f", a / b }')x |"
}

echo "Micro: $MICRO_BIN"
echo "Hummingbird: $PEER_BIN"
echo "Each cell: a fresh server on CPU 0 (event loops: ${SERVER_LOOPS:-as NIO chooses}), wrk -t1 on CPU 1, ${WARMUP}s warm-up then ${DURATION}s measured."
echo "Machine load before the run: $(load_average)"
echo
echo "| case | Micro req/s | Micro CPU/request | Hummingbird req/s | Hummingbird CPU/request | Micro/Hummingbird req/s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for routes in 0 100 1000; do row "GET /hello, $routes more routes before it, 64 connections" /hello 64 "$routes" 3; done
for connections in 64 256 1024; do row "GET /hello, $connections connections" /hello "$connections" 0 3; done
for items in 3 100 1000; do row "GET /page (signed in), $items items, 64 connections" /page 64 0 "$items"; done
echo
echo "Machine load after the run: $(load_average)"
echo "wrk output and the checked answers in $OUT"
