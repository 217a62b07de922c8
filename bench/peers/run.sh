#!/usr/bin/env bash
# Micro side by side with Hummingbird 2 and a raw SwiftNIO server, under wrk, in one run.
# Usage (from anywhere; it works from the repository's root):
#   bench/peers/run.sh
# Environment: DURATION=10 (seconds per measured run), WARMUP=3, ROUNDS=2, CONNECTIONS=64,
#   MEMORY_CONNECTIONS=256, MANY_CONNECTIONS=1024 (/hello only; and the idle connections whose
#   memory is measured), IDLE_WAIT=5 (seconds after the load before idle RSS is read),
#   RAW_PORT/MICRO_PORT/PEER_PORT (18090/18091/18092), SKIP_BUILD=1 to reuse the last builds,
#   SERVER_LOOPS=1 (event loops per server; empty for NIO's default).
# See bench/peers/README.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-3}"
ROUNDS="${ROUNDS:-2}"
CONNECTIONS="${CONNECTIONS:-64}"
MEMORY_CONNECTIONS="${MEMORY_CONNECTIONS:-256}"
MANY_CONNECTIONS="${MANY_CONNECTIONS:-1024}"
IDLE_WAIT="${IDLE_WAIT:-5}"
RAW_PORT="${RAW_PORT:-18090}"
MICRO_PORT="${MICRO_PORT:-18091}"
PEER_PORT="${PEER_PORT:-18092}"
TICKS_PER_SECOND="$(getconf CLK_TCK)"
USERNAME=bench1
PASSWORD=bench-password
EXPECTED_NAME=Bench1

source "$ROOT/bench/lib.sh"

# Servers on core 0, wrk on core 1.
SERVER_CPU=0
CLIENT_CPU=1
if [ "$(nproc)" -lt 2 ]; then
    echo "warning: one core only; server and wrk share it" >&2
    CLIENT_CPU=0
fi
# Each server has one core, so it runs one event loop (server_loops in bench/lib.sh).
server_loops 1
# Micro rewrites a session cookie that is more than 60 s old (its idle window's renewal); wrk
# keeps sending the cookie it started with, so a /page run must end within a minute of the
# sign-in that gave its cookie (each /page run signs in afresh).
if [ $((WARMUP + DURATION)) -ge 55 ]; then
    echo "warning: WARMUP + DURATION >= 55 s: Micro's /page would renew its session cookie on every request" \
        "after the first minute (wrk never sends the renewed cookie back); the figures would not be a browser's" >&2
fi

ensure_wrk
command -v curl >/dev/null 2>&1 || fail "curl is needed"
command -v python3 >/dev/null 2>&1 || fail "python3 is needed (bench/peers/idle-connections.py)"
# wrk and the servers hold MANY_CONNECTIONS sockets each.
[ "$(ulimit -n)" -ge $((MANY_CONNECTIONS + 256)) ] || ulimit -n $((MANY_CONNECTIONS + 256)) ||
    fail "the open-files limit ($(ulimit -n)) is too low for $MANY_CONNECTIONS connections"
command -v taskset >/dev/null 2>&1 || fail "taskset (util-linux) is needed"

# One build at a time: the machine's two cores are shared.
if [ "${SKIP_BUILD:-0}" = 1 ]; then
    echo "SKIP_BUILD=1: using the binaries built last time."
else
    echo "Building bench/ (release: RawNioServer, MicroBench)..."
    swift build -c release --package-path "$ROOT/bench" --product RawNioServer
    swift build -c release --package-path "$ROOT/bench" --product MicroBench
    echo "Building bench/peers/ (release: HummingbirdBench)..."
    swift build -c release --package-path "$ROOT/bench/peers" --product HummingbirdBench
fi
BENCH_BIN="$(swift build -c release --package-path "$ROOT/bench" --show-bin-path)"
PEER_BIN="$(swift build -c release --package-path "$ROOT/bench/peers" --show-bin-path)"
for binary in "$BENCH_BIN/RawNioServer" "$BENCH_BIN/MicroBench" "$PEER_BIN/HummingbirdBench"; do
    [ -x "$binary" ] || fail "$binary is missing (run without SKIP_BUILD=1)"
done

OUT="$(mktemp -d "${TMPDIR:-/tmp}/micro-peers.XXXXXX")"
SERVER_PID=""

stop_server() { stop_pid_in SERVER_PID; }
trap stop_server EXIT INT TERM

# The servers run from the repository's root: Micro serves its public/ folder there (each request
# pays for that look-up, as in a real app), and both apps read bench/views and bench/credentials.yml.
cd "$ROOT"

# Starts server $1 (raw, micro or peer), pinned to the server core, and waits for its port.
start_server() {
    local name="$1" port
    case "$name" in
        raw)
            port="$RAW_PORT"
            PORT="$port" taskset -c "$SERVER_CPU" "$BENCH_BIN/RawNioServer" >>"$OUT/$name.log" 2>&1 &
            ;;
        micro)
            port="$MICRO_PORT"
            MICRO_SESSION_SECRET="$(random_secret)" MICRO_ENV=production PORT="$port" \
                taskset -c "$SERVER_CPU" "$BENCH_BIN/MicroBench" >>"$OUT/$name.log" 2>&1 &
            ;;
        peer)
            port="$PEER_PORT"
            PORT="$port" taskset -c "$SERVER_CPU" "$PEER_BIN/HummingbirdBench" >>"$OUT/$name.log" 2>&1 &
            ;;
    esac
    SERVER_PID=$!
    wait_ready "$port" "$SERVER_PID" || fail "$name did not start; its log: $OUT/$name.log"
}

port_of() {
    case "$1" in raw) echo "$RAW_PORT" ;; micro) echo "$MICRO_PORT" ;; peer) echo "$PEER_PORT" ;; esac
}

# The status code of the headers in file $1.
status_in() {
    awk 'NR == 1 { print $2 }' "$1"
}

# Signs bench1 in on server $1 and prints the session cookie a browser holds afterwards.
# Micro: GET /signin gives a session and its CSRF token, POST /signin signs in (303) and, as a
# browser would, the first page shown afterwards takes the welcome message out of the session
# (a new cookie); the cookie returned is that steady one. Hummingbird: POST /signin (303).
sign_in() {
    local name="$1" port cookie token page
    port="$(port_of "$name")"
    if [ "$name" = micro ]; then
        page="$(curl -sS -D "$OUT/h-form" "http://127.0.0.1:$port/signin")"
        [ "$(status_in "$OUT/h-form")" = 200 ] || fail "micro: GET /signin answered $(status_in "$OUT/h-form")"
        token="$(printf '%s' "$page" | sed -n 's/.*name="_csrf" value="\([^"]*\)".*/\1/p' | head -n1)"
        cookie="$(cookie_in "$OUT/h-form")"
        [ -n "$token" ] && [ -n "$cookie" ] || fail "micro: GET /signin gave no CSRF token or no session cookie"
        curl -sS -o /dev/null -D "$OUT/h-signin" -H "Cookie: $cookie" \
            --data "_csrf=$token&username=$USERNAME&password=$PASSWORD" "http://127.0.0.1:$port/signin"
    else
        curl -sS -o /dev/null -D "$OUT/h-signin" --data "username=$USERNAME&password=$PASSWORD" "http://127.0.0.1:$port/signin"
    fi
    [ "$(status_in "$OUT/h-signin")" = 303 ] || fail "$name: POST /signin answered $(status_in "$OUT/h-signin"), not 303"
    cookie="$(cookie_in "$OUT/h-signin")"
    [ -n "$cookie" ] || fail "$name: POST /signin set no session cookie"
    if [ "$name" = micro ]; then
        curl -sS -o "$OUT/first-page.html" -D "$OUT/h-first" -H "Cookie: $cookie" "http://127.0.0.1:$port/page"
        [ "$(status_in "$OUT/h-first")" = 200 ] || fail "micro: the first GET /page after sign-in answered $(status_in "$OUT/h-first")"
        grep -q "Welcome back" "$OUT/first-page.html" || fail "micro: the first page after sign-in has no welcome message"
        local renewed
        renewed="$(cookie_in "$OUT/h-first")"
        [ -n "$renewed" ] && cookie="$renewed"
    fi
    printf '%s' "$cookie"
}

# Checks that server $1 answers GET $2 (with cookie $3, possibly empty) with a 200, the content
# type $4, a body containing $5 and no Set-Cookie (a steady state: nothing rewritten per request).
# Keeps the response in $OUT/check-$1$2.{headers,body} and prints its size in bytes.
check() {
    local name="$1" path="$2" cookie="$3" type="$4" text="$5" port base size
    port="$(port_of "$name")"
    base="$OUT/check-$name${path//\//-}"
    if [ -n "$cookie" ]; then
        size="$(curl -sS -o "$base.body" -D "$base.headers" -w '%{size_header} %{size_download}' -H "Cookie: $cookie" "http://127.0.0.1:$port$path")"
    else
        size="$(curl -sS -o "$base.body" -D "$base.headers" -w '%{size_header} %{size_download}' "http://127.0.0.1:$port$path")"
    fi
    [ "$(status_in "$base.headers")" = 200 ] || fail "$name: GET $path answered $(status_in "$base.headers"), not 200 (headers in $base.headers)"
    grep -qi "^content-type: $type" "$base.headers" || fail "$name: GET $path is not $type (headers in $base.headers)"
    grep -qF "$text" "$base.body" || fail "$name: GET $path does not contain '$text' (body in $base.body)"
    if grep -qi '^set-cookie:' "$base.headers"; then
        fail "$name: GET $path sets a cookie in the steady state (headers in $base.headers)"
    fi
    echo $((${size% *} + ${size#* }))
}

# Bytes per response wrk saw in file $1 (its total read over its request count).
bytes_per_response() {
    awk '
        function bytes(text,   value, unit) {
            value = text + 0; unit = text; sub(/^[0-9.]+/, "", unit)
            if (unit == "KB") value *= 1024; else if (unit == "MB") value *= 1048576; else if (unit == "GB") value *= 1073741824
            return value
        }
        / requests in / { requests = $1; read = bytes($5) }
        END { if (requests > 0) printf "%.0f", read / requests; else print 0 }
    ' "$1"
}

# The CPU time the server has used so far, in clock ticks (user + system, all its threads).
server_ticks() {
    cpu_ticks "$SERVER_PID"
}

# The server core's time so far, in clock ticks: all of it (whoever used it), and its idle part.
core_ticks() {
    awk -v cpu="cpu$SERVER_CPU" '$1 == cpu { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6 }' /proc/stat
}

# Runs wrk pinned to the client core against server $1, path $2, with $3 connections, for
# round $4 (cookie $5, possibly empty; expected response size $6 in bytes). Writes wrk's output
# to $OUT/$1$2-c$3-round$4.txt, and the CPU the server used meanwhile to ....cpu (its clock
# ticks, the server core's, and the core's idle ticks). A response size far from the checked one (a redirect, an error
# page) fails the run: wrk counts only 4xx/5xx as errors.
load() {
    local name="$1" path="$2" connections="$3" round="$4" cookie="$5" expected="$6" port file seen
    port="$(port_of "$name")"
    file="$OUT/$name${path//\//-}-c$connections-round$round.txt"
    local -a headers=()
    [ -n "$cookie" ] && headers=(-H "Cookie: $cookie")
    taskset -c "$CLIENT_CPU" wrk -t1 -c"$connections" -d"${WARMUP}s" "${headers[@]}" "http://127.0.0.1:$port$path" >/dev/null
    local ticks core idle
    ticks="$(server_ticks)"
    read -r core idle < <(core_ticks)
    taskset -c "$CLIENT_CPU" wrk -t1 -c"$connections" -d"${DURATION}s" --latency "${headers[@]}" \
        "http://127.0.0.1:$port$path" >"$file"
    local core_after idle_after
    read -r core_after idle_after < <(core_ticks)
    echo "$(($(server_ticks) - ticks)) $((core_after - core)) $((idle_after - idle))" >"${file%.txt}.cpu"
    seen="$(bytes_per_response "$file")"
    if ! awk -v s="$seen" -v e="$expected" 'BEGIN { exit !(s > e * 0.95 && s < e * 1.05) }'; then
        fail "$name GET $path -c$connections: $seen bytes per response under load, $expected when checked (wrk output in $file)"
    fi
    echo "  $name GET $path -c$connections: $(awk '/^Requests\/sec:/ { print $2 }' "$file") req/s"
}

# The resident set of the running server: peak (VmHWM) or current (VmRSS), in KiB.
rss() {
    awk -v key="$1:" '$1 == key { print $2 }' "/proc/$SERVER_PID/status"
}

# One server's whole turn in round $2: start, check, load, memory, stop.
turn() {
    local name="$1" round="$2" cookie hello_size page_size peak idle
    start_server "$name"
    hello_size="$(check "$name" /hello "" "text/plain" "Hello, World!")"
    # Before any load: the server started and answered one request.
    local start before_idle after_idle open
    start="$(rss VmRSS)"
    # MANY_CONNECTIONS idle keep-alive connections, each after one request, on the fresh server
    # (after a load its allocator keeps what the load used, and new connections reuse it): RSS
    # with them open, less RSS before; then they close.
    read -r before_idle after_idle open < <(python3 "$ROOT/bench/peers/idle-connections.py" "$(port_of "$name")" "$SERVER_PID" "$MANY_CONNECTIONS")
    echo "  $name: RSS $((start / 1024)) MiB before the load; $open idle connections: $(((after_idle - before_idle) * 1024 / (open > 0 ? open : 1))) bytes each"
    taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNECTIONS" -d"${WARMUP}s" "http://127.0.0.1:$(port_of "$name")/hello" >/dev/null
    load "$name" /hello "$CONNECTIONS" "$round" "" "$hello_size"
    if [ "$name" != raw ]; then
        for connections in "$CONNECTIONS" "$MEMORY_CONNECTIONS"; do
            cookie="$(sign_in "$name")"
            page_size="$(check "$name" /page "$cookie" "text/html" "Hello, $EXPECTED_NAME.")"
            cp "$OUT/check-$name-page.body" "$OUT/$name-page.html"
            load "$name" /page "$connections" "$round" "$cookie" "$page_size"
            check "$name" /page "$cookie" "text/html" "Hello, $EXPECTED_NAME." >/dev/null
        done
    fi
    load "$name" /hello "$MEMORY_CONNECTIONS" "$round" "" "$hello_size"
    load "$name" /hello "$MANY_CONNECTIONS" "$round" "" "$hello_size"
    peak="$(rss VmHWM)"
    sleep "$IDLE_WAIT"
    idle="$(rss VmRSS)"
    echo "$peak $idle $start $before_idle $after_idle $open" >"$OUT/$name-memory-round$round.txt"
    echo "  $name: peak RSS $((peak / 1024)) MiB, idle RSS $((idle / 1024)) MiB ${IDLE_WAIT}s after the load"
    stop_server
}

echo
echo "wrk -t1 --latency, ${WARMUP}s warm-up then ${DURATION}s measured, -c$CONNECTIONS and -c$MEMORY_CONNECTIONS (/hello also -c$MANY_CONNECTIONS);"
echo "server pinned to CPU $SERVER_CPU (event loops: ${SERVER_LOOPS:-as NIO chooses}), wrk to CPU $CLIENT_CPU; one server at a time; $ROUNDS round(s), order alternating."
echo "Machine load before the run: $(load_average)"
for round in $(seq 1 "$ROUNDS"); do
    echo "Round $round:"
    if [ $((round % 2)) -eq 1 ]; then order="raw micro peer"; else order="peer micro raw"; fi
    for name in $order; do
        turn "$name" "$round"
    done
done
echo "Machine load after the run: $(load_average)"

# Both apps render the same templates with the same data: the pages must be the same bytes.
cmp -s "$OUT/micro-page.html" "$OUT/peer-page.html" ||
    fail "Micro's and Hummingbird's /page differ: diff $OUT/micro-page.html $OUT/peer-page.html"

# The round with the most requests per second for server $1, path $2, connections $3: its file.
best() {
    local file best_file="" best_rps=-1 rps
    for file in "$OUT/$1${2//\//-}-c$3"-round*.txt; do
        rps="$(awk '/^Requests\/sec:/ { print $2 }' "$file")"
        if awk -v a="$rps" -v b="$best_rps" 'BEGIN { exit !(a > b) }'; then
            best_rps="$rps"
            best_file="$file"
        fi
    done
    echo "$best_file"
}

# Fields of one wrk output: req/s p50 p99 errors (socket errors + non-2xx/3xx), then the server's
# CPU time per request in microseconds, its share of the server core and the core's idle share,
# from the .cpu file.
parse() {
    local ticks core idle
    read -r ticks core idle <"${1%.txt}.cpu"
    awk -v ticks="$ticks" -v core="$core" -v idle="$idle" -v hz="$TICKS_PER_SECOND" '
        / requests in / { requests = $1 }
        /^Requests\/sec:/ { rps = $2 }
        /^ +50%/ { p50 = $2 }
        /^ +99%/ { p99 = $2 }
        /Socket errors:/ { gsub(",", ""); errors += $4 + $6 + $8 + $10 }
        /Non-2xx or 3xx responses:/ { errors += $5 }
        END {
            printf "%.0f %s %s %d %.1f %.0f%%/%.0f%%\n", rps, p50, p99, errors,
                (requests > 0 ? ticks * 1e6 / hz / requests : 0), (core > 0 ? 100 * ticks / core : 0),
                (core > 0 ? 100 * idle / core : 0)
        }
    ' "$1"
}

# The largest peak, idle and start RSS of server $1 over the rounds, in MiB, and the most bytes
# an idle connection cost it.
memory() {
    cat "$OUT/$1"-memory-round*.txt | awk '
        {
            if ($1 > peak) peak = $1; if ($2 > idle) idle = $2; if ($3 > start) start = $3
            each = ($6 > 0 ? ($5 - $4) * 1024 / $6 : 0); if (each > per) per = each
        }
        END { printf "%.1f %.1f %.1f %.0f\n", peak / 1024, idle / 1024, start / 1024, per }
    '
}

label() {
    case "$1" in raw) echo "raw SwiftNIO" ;; micro) echo "Micro" ;; peer) echo "Hummingbird 2.28.1" ;; esac
}

declare -A RPS P99 CPU
echo
declare -A PEAK_RSS IDLE_RSS START_RSS PER_CONNECTION
echo "| server | endpoint | conns | req/s | p50 | p99 | errors | CPU/request | core: server/idle | peak RSS | idle RSS |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for name in raw micro peer; do
    read -r PEAK IDLE START PER < <(memory "$name")
    PEAK_RSS[$name]="$PEAK"; IDLE_RSS[$name]="$IDLE"; START_RSS[$name]="$START"; PER_CONNECTION[$name]="$PER"
    for path in /hello /page; do
        [ "$name" = raw ] && [ "$path" = /page ] && continue
        counts="$CONNECTIONS $MEMORY_CONNECTIONS"
        [ "$path" = /hello ] && counts="$counts $MANY_CONNECTIONS"
        for connections in $counts; do
            read -r rps p50 p99 errors cpu share < <(parse "$(best "$name" "$path" "$connections")")
            RPS["$name$path$connections"]="$rps"
            P99["$name$path$connections"]="$(to_ms "$p99")"
            CPU["$name$path$connections"]="$cpu"
            echo "| $(label "$name") | GET $path | $connections | $rps | $p50 | $p99 | $errors | $cpu µs | $share | $PEAK MiB | $IDLE MiB |"
        done
    done
done

ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'
}
verdict() {
    if awk -v v="$1" -v t="$2" -v d="$3" 'BEGIN { exit !(d == "min" ? v >= t : v <= t) }'; then echo met; else echo MISSED; fi
}

echo
echo "| ratio | conns | value | target |"
echo "| --- | ---: | ---: | --- |"
for connections in "$CONNECTIONS" "$MEMORY_CONNECTIONS"; do
    r="$(ratio "${RPS[micro/page$connections]}" "${RPS[peer/page$connections]}")"
    echo "| Micro / Hummingbird req/s, GET /page | $connections | ${r}x | >= 2.00x: $(verdict "$r" 2.0 min) |"
done
for connections in "$CONNECTIONS" "$MEMORY_CONNECTIONS"; do
    r="$(ratio "${CPU[micro/page$connections]}" "${CPU[micro/hello$connections]}")"
    echo "| Micro's CPU per request, GET /page / GET /hello | $connections | ${r}x | <= 2.50x: $(verdict "$r" 2.5 max) |"
done
for connections in "$CONNECTIONS" "$MEMORY_CONNECTIONS" "$MANY_CONNECTIONS"; do
    r="$(ratio "${RPS[micro/hello$connections]}" "${RPS[raw/hello$connections]}")"
    target=0.97
    [ "$connections" = "$CONNECTIONS" ] && target=1.0
    echo "| Micro / raw SwiftNIO req/s, GET /hello | $connections | ${r}x | >= ${target}x: $(verdict "$r" "$target" min) |"
done
for path in /hello /page; do
    counts="$CONNECTIONS $MEMORY_CONNECTIONS"
    [ "$path" = /hello ] && counts="$counts $MANY_CONNECTIONS"
    for connections in $counts; do
        r="$(ratio "${RPS[micro$path$connections]}" "${RPS[peer$path$connections]}")"
        [ "$path" = /page ] || echo "| Micro / Hummingbird req/s, GET $path | $connections | ${r}x | >= 1.00x: $(verdict "$r" 1.0 min) |"
        r="$(ratio "${P99[micro$path$connections]}" "${P99[peer$path$connections]}")"
        echo "| Micro / Hummingbird p99, GET $path | $connections | ${r}x | <= 1.00x: $(verdict "$r" 1.0 max) |"
        r="$(ratio "${CPU[micro$path$connections]}" "${CPU[peer$path$connections]}")"
        echo "| Micro / Hummingbird CPU per request, GET $path | $connections | ${r}x | (no target; lower is cheaper) |"
    done
done
r="$(ratio "${PEAK_RSS[micro]}" "${PEAK_RSS[peer]}")"
echo "| Micro / Hummingbird peak RSS | | ${r}x (${PEAK_RSS[micro]} / ${PEAK_RSS[peer]} MiB) | <= 0.80x: $(verdict "$r" 0.8 max) |"
for name in micro peer raw; do
    r="$(ratio "${IDLE_RSS[$name]}" "${START_RSS[$name]}")"
    target="no target"
    [ "$name" = micro ] && target="<= 1.10x: $(verdict "$r" 1.1 max)"
    echo "| $(label "$name"): idle RSS after the load / RSS before it | | ${r}x (${IDLE_RSS[$name]} / ${START_RSS[$name]} MiB) | $target |"
done
echo "| RSS per idle connection: Micro, Hummingbird, raw SwiftNIO | $MANY_CONNECTIONS | ${PER_CONNECTION[micro]}, ${PER_CONNECTION[peer]}, ${PER_CONNECTION[raw]} bytes | (reported) |"
echo
echo "Best round of $ROUNDS for each row; errors = socket errors + non-2xx/3xx answers (every response's size was"
echo "also checked against a verified 200). Peak RSS = VmHWM over the server's life (its largest over the rounds),"
echo "idle RSS = VmRSS ${IDLE_WAIT}s after the last (-c$MANY_CONNECTIONS) load, RSS before it = VmRSS after the first request"
echo "(the largest of each over the rounds); an idle connection's cost = the RSS with $MANY_CONNECTIONS keep-alive connections open"
echo "after one request each, on the fresh server, less the RSS before they opened, over the connections still open (the"
echo "largest over the rounds). CPU/request = the server's user + system"
echo "time over the measured run / its requests; core: the shares of CPU $SERVER_CPU's time that the server used and that"
echo "stayed idle (the rest went to other processes: a shared machine's noise). wrk output and responses in $OUT"
