# Sourced by the scripts that run the sample app (Tests/Browser, Tests/Httplint, Tests/Load,
# Tests/Instances, Tests/Oidc, Tests/SignInProxy): build it, find a free port, start it in the
# background, wait until it answers, and stop it by its PID (SIGINT, then SIGKILL after 5 s)
# whatever happened.
#
#   source "$repo/Tests/Support/sample-app.sh"
#   sample_app_build                                   # sets SAMPLE_APP, the binary
#   sample_app_run add-user ann --db "$work/users.db"  # one of its commands, as the app's user
#   port="$(sample_app_free_port 4599)"                # the first free port from 4599
#   trap sample_app_stop_all EXIT
#   trap 'sample_app_stop_all; exit 130' INT TERM
#   sample_app_start "$log" PORT="$port" MICRO_ENV=production ...   # sets SAMPLE_APP_PID
#   sample_app_wait "http://127.0.0.1:$port/" "$SAMPLE_APP_PID" "$log" || exit 1
#
# The sourcing script defines `say` (a line with its own prefix); PYTHON names the python
# (default python3).
#
# The app and its commands run as an ordinary user, as a developer runs them or a service's
# User= does; root hides what they would meet (a socket option only root may set, a file root
# reads whatever its mode). Run by an ordinary user, a script runs them as that user. Run as
# root (to install and start the servers Micro does not own: nginx, Apache, PostgreSQL, the
# provider, Chromium), it runs them as MICRO_CI_APP_USER (.ci/run exports its own user,
# micro-ci), else as nobody (65534), through Tests/Support/as-app-user; files the app reads or
# writes are made by that user (sample_app_folder). The scripts themselves and those servers
# stay root's.
#
#   sample_app_folder micro-oidc                       # prints a new folder of the app's user
#   as_app_user COMMAND...                             # any command as the app's user
#   "$SAMPLE_APP_COMMAND" ...                          # SampleApp as that user, for a Python
#                                                      # script's --binary

SAMPLE_APP=""
SAMPLE_APP_PID=""
SAMPLE_APP_PIDS=()
SAMPLE_APP_SUPPORT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SAMPLE_APP_COMMAND="$SAMPLE_APP_SUPPORT/sample-app-as-user"
# The app's working folder (sample_app_build): the checkout, or a folder of the app's user.
SAMPLE_APP_DIR="$PWD"
if [ "$(id -u)" -eq 0 ]; then SAMPLE_APP_USER="${MICRO_CI_APP_USER:-nobody}"; else SAMPLE_APP_USER=""; fi
export SAMPLE_APP_USER

# Runs its arguments as the app's user (as themselves when the script is not root's).
as_app_user() { "$SAMPLE_APP_SUPPORT/as-app-user" "$@"; }

# Prints a new temporary folder named from $1, made by the app's user (mode 0700, its own), for
# what the app reads or writes there (a users database and its journal, a secret's file). Root,
# which runs the script and the other servers, writes and reads there as anywhere.
sample_app_folder() { as_app_user mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX"; }

# Runs SampleApp with these arguments (a command: add-user, ...) as the app's user, from the
# app's working folder.
sample_app_run() { env -C "$SAMPLE_APP_DIR" "$SAMPLE_APP_COMMAND" "$@"; }

# Runs its arguments as root: directly when this is root, else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        say "need root to run: $*"; return 1; fi
}

# Builds SampleApp (the debug build `swift test` leaves, so it costs a link at most), sets
# SAMPLE_APP to its path (exported, for sample-app-as-user) and the app's working folder.
sample_app_build() {
    local build=() builder="" file
    if [ -n "$SAMPLE_APP_USER" ] && [ "$(as_app_user id -u)" -eq 0 ]; then
        say "MICRO_CI_APP_USER ($SAMPLE_APP_USER) is root: name an ordinary user to run the app as"
        return 1
    fi
    # Root builds as the checkout's owner (CI's micro-ci; a developer running a script through
    # sudo), so that it leaves no files in their .build they could not replace; as itself in a
    # checkout of its own.
    if [ "$(id -u)" -eq 0 ] && [ "$(stat -c %u .)" -ne 0 ] && getent passwd "$(stat -c %u .)" >/dev/null; then
        builder="$(stat -c %u .)"
    fi
    build=(env SAMPLE_APP_USER="$builder" "$SAMPLE_APP_SUPPORT/as-app-user")
    say "building SampleApp as $("${build[@]}" id -un)"
    "${build[@]}" swift build --product SampleApp 2>&1 | tail -n 2
    SAMPLE_APP="$("${build[@]}" swift build --product SampleApp --show-bin-path)/SampleApp"
    export SAMPLE_APP
    if ! as_app_user test -x "$SAMPLE_APP"; then
        say "$(as_app_user id -un) may not run $SAMPLE_APP (every folder on its way must be open to it);" \
            "set MICRO_CI_APP_USER to a user who may"
        return 1
    fi
    # The app works in the checkout (views/, public/, credentials.yml; in development the
    # .micro-session-secret and .micro-data-key it makes) when its user may write there and
    # read those two. Else (nobody, in a checkout of root's) in a folder of that user's with
    # links to the three, where the secrets it makes are its own (mode 0600, as always); left
    # in TMPDIR.
    SAMPLE_APP_DIR="$PWD"
    local own=true
    as_app_user test -w "$PWD" || own=false
    for file in .micro-session-secret .micro-data-key; do
        if [ -e "$file" ] && ! as_app_user test -r "$file"; then own=false; fi
    done
    if ! "$own"; then
        SAMPLE_APP_DIR="$(sample_app_folder micro-sample-app)"
        as_app_user ln -s "$PWD/views" "$PWD/public" "$PWD/credentials.yml" "$SAMPLE_APP_DIR/"
    fi
    say "SampleApp runs as $(as_app_user id -un) (uid $(as_app_user id -u)), from $SAMPLE_APP_DIR"
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

# Starts SampleApp on 127.0.0.1 in the background as the app's user, from its working folder,
# its output to the file $1, with the environment variables that follow (NAME=VALUE ...) besides
# the script's own. Sets SAMPLE_APP_PID; sample_app_stop_all stops it. env, as-app-user, setpriv
# and env again each exec the next: the PID is the app's own.
sample_app_start() {
    local log="$1"
    shift
    env -C "$SAMPLE_APP_DIR" HOST=127.0.0.1 "$@" "$SAMPLE_APP_COMMAND" >"$log" 2>&1 &
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
    # An app sample_app_start started runs as the app's user, not as root (its effective uid).
    if [ -n "$SAMPLE_APP_USER" ] && [[ " ${SAMPLE_APP_PIDS[*]} " == *" $pid "* ]]; then
        local uid
        uid="$(awk '/^Uid:/ { print $3 }' "/proc/$pid/status" 2>/dev/null || true)"
        if [ "$uid" != "$(id -u "$SAMPLE_APP_USER")" ]; then
            say "SampleApp (PID $pid) runs as uid ${uid:-?}, not as $SAMPLE_APP_USER"
            return 1
        fi
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
