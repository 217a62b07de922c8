#!/usr/bin/env bash
# How many deadline checks an idle keep-alive connection runs: MicroBench serves one connection
# that sends GET /hello every 3 s (longer than the check interval, so each check finds an answer
# sent), then idles; a uprobe on HttpHandler.checkDeadline counts the checks of the next 10 s.
# One check per connection runs every 2.5 s (a quarter of the shortest timeout), so a server
# right runs 4 in those 10 s whatever came before; one that lost track of a check runs more.
# Usage: bench/deadline-checks.sh [BINARY]   (default: bench/.build/release/MicroBench, not built)
# Env:   REQUESTS=10, PORT=18460
# Needs perf (linux-perf) and uprobes; run as root. See bench/README.md ("The connection's task,
# the answer's end and idle memory").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/bench/lib.sh"
REQUESTS="${REQUESTS:-10}"
PORT="${PORT:-18460}"
BINARY="$(realpath "${1:-$ROOT/bench/.build/release/MicroBench}")"
[ -x "$BINARY" ] || fail "$BINARY is not an executable (build it: swift build -c release --package-path bench --product MicroBench)"
command -v perf >/dev/null 2>&1 || fail "perf is needed (apt-get install linux-perf)"
[[ "$REQUESTS" =~ ^[0-9]+$ ]] || fail "REQUESTS must be a number"

SYMBOL="$(nm "$BINARY" | awk '/HttpHandlerC13checkDeadline7context/ && $2 ~ /[tT]/ { symbol = $3 } END { print symbol }')"
[ -n "$SYMBOL" ] || fail "no HttpHandler.checkDeadline(context:) in $BINARY"
PROBE="microchecks$$"
perf probe -q -x "$BINARY" --add "$PROBE=$SYMBOL" || fail "perf probe could not add a uprobe (root and uprobes are needed)"
SERVER=""
cleanup() {
    [ -z "$SERVER" ] || { kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; }
    perf probe -q --del "*:$PROBE" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

cd "$ROOT"
NIO_SINGLETON_GROUP_LOOP_COUNT=1 MICRO_ENV=production MICRO_SESSION_SECRET="$(random_secret)" PORT="$PORT" \
    "$BINARY" >/dev/null 2>&1 &
SERVER=$!
wait_ready "$PORT" "$SERVER" || fail "MicroBench did not start"
EVENT="$(perf probe -l 2>/dev/null | awk -v p="$PROBE" '$1 ~ ":"p"$" { event = $1 } END { print event }')"
[ -n "$EVENT" ] || fail "the uprobe $PROBE is not listed"

python3 - "$PORT" "$SERVER" "$EVENT" "$REQUESTS" <<'PY'
import socket, subprocess, sys, time
port, pid, event, requests = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
connection = socket.create_connection(("127.0.0.1", port))
def hello():
    connection.sendall(b"GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
    data = b""
    while b"Hello" not in data:
        chunk = connection.recv(4096)
        if not chunk:
            sys.exit("the server closed the connection")
        data += chunk
for _ in range(requests):
    hello()
    time.sleep(3)
stat = subprocess.run(["perf", "stat", "-x,", "-e", event, "-p", pid, "--", "sleep", "10"], capture_output=True, text=True)
count = stat.stderr.strip().split(",")[0]
print(f"{requests} requests 3 s apart on one connection, then 10 s idle: {count} deadline checks (4 for one check per connection)")
hello()
connection.close()
PY
