#!/usr/bin/env bash
# What an app's routes cost a request for another path: MicroBench with N extra routes defined
# before /hello (EXTRA_ROUTES, see bench/Sources/BenchRoutes/ExtraRoutes.swift), its /hello and
# its /last (defined after all of them), each case as a ratio to /hello with none, from one run.
#
# Usage: bench/routes.sh [BINARY]     (default: bench/.build/release/MicroBench, built first)
# Env:   CASES="0:/hello 100:/hello 1000:/hello 100:/last 1000:/last"   extra routes:path; the first
#                                     is the baseline
#        MODE=cpu   (default) one server per case, all on CPU 0 at once, each loaded by its own wrk
#                   on CPU 1: CPU time per request (user + system, from /proc), as bench/compare.sh
#                   does; whatever else the machine does slows every case alike
#        MODE=rps   one server at a time on CPU 0, wrk on CPU 1: requests/s, as bench/run.sh
#        DURATION=6 seconds per round, ROUNDS=5, CONNECTIONS=64 per server, SKIP_BUILD=1,
#        SERVER_LOOPS (cpu: NIO's own count; rps: 1, as bench/run.sh)
# See bench/README.md ("An app's routes").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CASES=(${CASES:-0:/hello 100:/hello 1000:/hello 100:/last 1000:/last})
MODE="${MODE:-cpu}"
DURATION="${DURATION:-6}"
ROUNDS="${ROUNDS:-5}"
CONNECTIONS="${CONNECTIONS:-64}"
BASE_PORT="${BASE_PORT:-18301}"
source "$ROOT/bench/lib.sh"

[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "error: ROUNDS must be 1 or more" >&2; exit 2; }
[ "$MODE" = cpu ] || [ "$MODE" = rps ] || { echo "error: MODE is cpu or rps" >&2; exit 2; }
for case in "${CASES[@]}"; do
    [[ "$case" =~ ^[0-9]+:/ ]] || { echo "error: a case is ROUTES:/path, not '$case'" >&2; exit 2; }
done
if [ "$(nproc)" -lt 2 ]; then
    echo "error: needs two cores (servers on CPU 0, wrk on CPU 1)" >&2
    exit 2
fi
if [ "$MODE" = cpu ]; then server_loops ""; else server_loops 1; fi
ensure_wrk

if [ $# -ge 1 ]; then
    BINARY="$(realpath "$1")"
else
    if [ "${SKIP_BUILD:-0}" != 1 ]; then
        echo "Building MicroBench (release)..."
        swift build -c release --package-path "$ROOT/bench" --product MicroBench
    fi
    BINARY="$(swift build -c release --package-path "$ROOT/bench" --show-bin-path)/MicroBench"
fi
[ -x "$BINARY" ] || { echo "error: $BINARY is not an executable" >&2; exit 2; }

OUT="$(mktemp -d "${TMPDIR:-/tmp}/micro-routes.XXXXXX")"
PIDS=()
LOADS=()
cleanup() {
    for pid in "${LOADS[@]}" "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${LOADS[@]}" "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM

# Case $1's server on its own port, from the repository's root (MicroBench serves public/ there).
cd "$ROOT"
SECRET="$(random_secret)"
start_server() {
    local index="$1"
    MICRO_SESSION_SECRET="$SECRET" MICRO_ENV=production PORT="$((BASE_PORT + index))" \
        EXTRA_ROUTES="${CASES[$index]%%:*}" taskset -c 0 "$BINARY" >"$OUT/server-$index.log" 2>&1 &
    PIDS[$index]=$!
    wait_ready "$((BASE_PORT + index))" "${PIDS[$index]}"
}
stop_server() {
    kill "${PIDS[$1]}" 2>/dev/null || true
    wait "${PIDS[$1]}" 2>/dev/null || true
    PIDS[$1]=""
}
url() { echo "http://127.0.0.1:$((BASE_PORT + $1))${CASES[$1]#*:}"; }

echo "Binary: $BINARY"
echo "Cases: ${CASES[*]} (extra routes:path; the first is the baseline)"
COUNT="${#CASES[@]}"
if [ "$MODE" = cpu ]; then
    for index in $(seq 0 $((COUNT - 1))); do start_server "$index"; done
    # A warm-up, all at once.
    LOADS=()
    for index in $(seq 0 $((COUNT - 1))); do
        taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d2s "$(url "$index")" >/dev/null &
        LOADS+=($!)
    done
    for pid in "${LOADS[@]}"; do wait "$pid"; done
    LOADS=()
    echo "All servers at once on CPU 0 (event loops: ${SERVER_LOOPS:-as NIO chooses}), each loaded by wrk -t1 -c$CONNECTIONS -d${DURATION}s on CPU 1."
    echo "Each cell: CPU µs per request, and the baseline's over it (speed relative to the baseline; 1 = no cost)."
    echo
    header="| round |"; rule="| ---: |"
    for case in "${CASES[@]}"; do header+=" ${case%%:*} routes, ${case#*:} |"; rule+=" ---: |"; done
    echo "$header"; echo "$rule"
    for round in $(seq 1 "$ROUNDS"); do
        before=(); LOADS=()
        for index in $(seq 0 $((COUNT - 1))); do before[$index]="$(cpu_ticks "${PIDS[$index]}")"; done
        for index in $(seq 0 $((COUNT - 1))); do
            taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" "$(url "$index")" >"$OUT/$index-$round.txt" &
            LOADS+=($!)
        done
        for pid in "${LOADS[@]}"; do wait "$pid"; done
        LOADS=()
        line="| $round |"
        base=""
        for index in $(seq 0 $((COUNT - 1))); do
            used=$(($(cpu_ticks "${PIDS[$index]}") - before[index]))
            micros="$(awk -v t="$used" -v n="$(wrk_requests "$OUT/$index-$round.txt")" -v hz="$(getconf CLK_TCK)" \
                'BEGIN { printf "%.2f", t / hz / n * 1e6 }')"
            [ -n "$base" ] || base="$micros"
            ratio="$(awk -v b="$base" -v m="$micros" 'BEGIN { printf "%.3f", b / m }')"
            echo "$ratio" >>"$OUT/ratio-$index"
            line+=" $micros ($ratio) |"
        done
        echo "$line"
    done
else
    echo "One server at a time on CPU 0 (event loops: ${SERVER_LOOPS:-as NIO chooses}), wrk -t1 -c$CONNECTIONS -d${DURATION}s on CPU 1 after a 2 s warm-up;"
    echo "the order alternates by round. Each cell: requests/s, and over the baseline's of that round."
    echo
    header="| round |"; rule="| ---: |"
    for case in "${CASES[@]}"; do header+=" ${case%%:*} routes, ${case#*:} |"; rule+=" ---: |"; done
    echo "$header"; echo "$rule"
    for round in $(seq 1 "$ROUNDS"); do
        order=$(seq 0 $((COUNT - 1)))
        [ $((round % 2)) -eq 1 ] || order=$(seq $((COUNT - 1)) -1 0)
        for index in $order; do
            start_server "$index"
            taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d2s "$(url "$index")" >/dev/null
            taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" "$(url "$index")" >"$OUT/$index-$round.txt"
            wrk_requests "$OUT/$index-$round.txt" >/dev/null
            stop_server "$index"
        done
        line="| $round |"
        base=""
        for index in $(seq 0 $((COUNT - 1))); do
            rps="$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$OUT/$index-$round.txt")"
            [ -n "$base" ] || base="$rps"
            ratio="$(awk -v b="$base" -v m="$rps" 'BEGIN { printf "%.3f", m / b }')"
            echo "$ratio" >>"$OUT/ratio-$index"
            line+=" $rps ($ratio) |"
        done
        echo "$line"
    done
fi
echo
line="| median |"
for index in $(seq 0 $((COUNT - 1))); do line+=" $(median <"$OUT/ratio-$index")x |"; done
echo "$line"
echo "wrk output in $OUT"
