# Sourced by the scripts that run the sample app (Tests/Browser, Tests/Httplint, Tests/Load,
# Tests/Instances): build it, find a free port, start it in the background, wait until it
# answers, and stop it by its PID (SIGINT, then SIGKILL after 5 s) whatever happened.
#
#   source "$repo/Tests/Support/sample-app.sh"
#   sample_app_build                                   # sets SAMPLE_APP, the binary
#   port="$(sample_app_free_port 4599)"                # the first free port from 4599
#   trap sample_app_stop_all EXIT
#   trap 'sample_app_stop_all; exit 130' INT TERM
#   sample_app_start "$log" PORT="$port" MICRO_ENV=production ...   # sets SAMPLE_APP_PID
#   sample_app_wait "http://127.0.0.1:$port/" "$SAMPLE_APP_PID" "$log" || exit 1
#
# The sourcing script defines `say` (a line with its own prefix); PYTHON names the python
# (default python3).

SAMPLE_APP=""
SAMPLE_APP_PID=""
SAMPLE_APP_PIDS=()

# Runs its arguments as root: directly when this is root, else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        say "need root to run: $*"; return 1; fi
}

# Builds SampleApp (the debug build `swift test` leaves, so it costs a link at most) and sets
# SAMPLE_APP to its path.
sample_app_build() {
    say "building SampleApp"
    swift build --product SampleApp 2>&1 | tail -n 2
    SAMPLE_APP="$(swift build --product SampleApp --show-bin-path)/SampleApp"
}

# Prints the first port of 127.0.0.1 from $1 (of a hundred) that nothing listens on.
sample_app_free_port() {
    "${PYTHON:-python3}" - "$1" <<'PY'
import socket, sys
start = int(sys.argv[1])
for port in range(start, start + 100):
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            continue
        print(port)
        break
else:
    sys.exit(f"no free port from {start} to {start + 99}")
PY
}

# Starts SampleApp on 127.0.0.1 in the background, its output to the file $1, with the
# environment variables that follow (NAME=VALUE ...) besides the script's own. Sets
# SAMPLE_APP_PID; sample_app_stop_all stops it.
sample_app_start() {
    local log="$1"
    shift
    env HOST=127.0.0.1 "$@" "$SAMPLE_APP" >"$log" 2>&1 &
    SAMPLE_APP_PID=$!
    SAMPLE_APP_PIDS+=("$SAMPLE_APP_PID")
}

# Waits (at most 30 s) until GET $1 answers 200; fails at once when the process $2 exits. On
# failure, says so with the last lines of its log, the file $3; $4 names it (SampleApp). With
# $5, waits instead until GET $1, asked for HTML, answers a redirect to a URL starting with $5
# (a sign-in proxy sending a browser to its provider).
sample_app_wait() {
    local url="$1" pid="$2" log="$3" name="${4:-SampleApp}" redirect="${5:-}"
    if ! "${PYTHON:-python3}" - "$url" "$pid" "$redirect" <<'PY'
import http.client, os, sys, time, urllib.parse, urllib.request
url, pid, redirect = sys.argv[1], int(sys.argv[2]), sys.argv[3]
deadline = time.time() + 30
while time.time() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("the server exited")
    try:
        if redirect:
            parts = urllib.parse.urlsplit(url)
            connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=2)
            connection.request("GET", parts.path or "/", headers={"Accept": "text/html"})
            answer = connection.getresponse()
            if answer.status in (302, 303) and answer.getheader("Location", "").startswith(redirect):
                sys.exit(0)
        else:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status == 200:
                    sys.exit(0)
    except Exception:
        pass
    time.sleep(0.2)
sys.exit("the server did not answer within 30 s")
PY
    then
        say "$name did not come up; its log:"; tail -n 20 "$log" | sed 's/^/    /'
        return 1
    fi
}

# Stops the process $1, a child of this shell (a SampleApp, or another server the script
# started): the signal $2 (INT unless given), then KILL when it is still there after 5 s.
stop_by_pid() {
    local pid="$1" signal="${2:-INT}"
    if running "$pid"; then
        kill "-$signal" "$pid" 2>/dev/null || true
        for _ in $(seq 50); do running "$pid" || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

# Whether the process $1 runs (a child that has exited but is not yet waited for does not).
running() {
    kill -0 "$1" 2>/dev/null && [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" != Z ]
}

# Stops every SampleApp sample_app_start started (signal $1, INT unless given).
sample_app_stop_all() {
    local pid
    for pid in "${SAMPLE_APP_PIDS[@]}"; do stop_by_pid "$pid" "${1:-INT}"; done
    SAMPLE_APP_PIDS=()
}

# The end of a script's cleanup: when its status $1 is a failure, the last lines of each log in
# its temporary folder $2 (leaving out those that match the grep pattern $3, when given); then
# the folder removed, or kept with KEEP_LOGS=1.
leave_work() {
    local status="$1" work="$2" skip="${3:-}" log
    if [ "$status" -ne 0 ]; then
        for log in "$work"/*.log; do
            [ -f "$log" ] || continue
            say "last lines of $(basename "$log"):"
            if [ -n "$skip" ]; then grep -v "$skip" "$log"; else cat "$log"; fi | tail -n 8 | sed 's/^/    /' || true
        done
    fi
    if [ "${KEEP_LOGS:-}" = 1 ]; then say "logs kept in $work"; else rm -rf "$work"; fi
}
