# Shell functions shared by the bench scripts (bench/*.sh, bench/peers/run.sh), sourced:
#   source "$ROOT/bench/lib.sh"
# Nothing here runs on its own; each function says what it expects.

# Prints an error and stops the script.
fail() {
    echo "error: $*" >&2
    exit 1
}

# How many event loops each NIO server runs (raw NIO, Micro and Hummingbird alike).
# Usage: server_loops DEFAULT, DEFAULT a number, or empty for NIO's own count.
#
# NIO sizes its loops to the machine's cores and cgroup limit and does not see taskset's mask: a
# server pinned to one core would run two loops there, the kernel switching between them at its
# 4 ms tick (that tick was the p99 at -c64, for raw NIO as for Micro). SERVER_LOOPS overrides the
# default (empty: NIO's own count); a NIO_SINGLETON_GROUP_LOOP_COUNT already set is kept.
server_loops() {
    SERVER_LOOPS="${SERVER_LOOPS-${NIO_SINGLETON_GROUP_LOOP_COUNT-$1}}"
    if [ -z "$SERVER_LOOPS" ]; then
        unset NIO_SINGLETON_GROUP_LOOP_COUNT
    elif [[ "$SERVER_LOOPS" =~ ^[1-9][0-9]*$ ]]; then
        export NIO_SINGLETON_GROUP_LOOP_COUNT="$SERVER_LOOPS"
    else
        echo "error: SERVER_LOOPS must be a positive number of event loops, or empty; it is '$SERVER_LOOPS'" >&2
        exit 2
    fi
}

# Installs wrk from Debian when it is missing.
ensure_wrk() {
    if ! command -v wrk >/dev/null 2>&1; then
        echo "Installing wrk..."
        apt-get update
        apt-get install -y wrk
    fi
}

# A fresh 32-byte session secret, in hex (MICRO_SESSION_SECRET).
random_secret() {
    od -An -N32 -tx1 /dev/urandom | tr -d ' \n'
}

# Waits until something accepts connections on 127.0.0.1:$1 (at most 20 s); otherwise says so
# and returns 1 (which stops a script under set -e). With a process id $2, gives up at once when
# that process has exited (a server that did not start).
wait_ready() {
    local port="$1" pid="${2:-}" i
    for i in $(seq 1 200); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
        if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
            echo "error: the server for port $port exited at start-up" >&2
            return 1
        fi
        sleep 0.1
    done
    echo "error: nothing listens on port $port after 20 s" >&2
    return 1
}

# User plus system CPU time of process $1 (all its threads), in clock ticks: fields 14 and 15 of
# its stat, read after the command name's closing parenthesis (the name may hold spaces).
cpu_ticks() {
    sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# The requests of wrk output $1; fails (naming it) when there are none or any went wrong.
wrk_requests() {
    local count
    count="$(awk '/requests in/ { print $1 }' "$1")"
    if [ -z "$count" ] || [ "$count" -eq 0 ] || grep -qE 'Non-2xx|Socket errors' "$1"; then
        echo "error: a run did not answer cleanly; see $1" >&2
        cat "$1" >&2
        exit 1
    fi
    echo "$count"
}

# The median of the numbers on standard input, one a line, with three decimals.
median() {
    sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# A latency from wrk's text (850.00us, 1.20ms, 1.02s, 1.00m) in milliseconds.
to_ms() {
    awk -v v="$1" 'BEGIN { if (v ~ /us$/) printf "%.3f", v / 1000; else if (v ~ /ms$/) printf "%.3f", v + 0; else if (v ~ /m$/) printf "%.3f", v * 60000; else printf "%.3f", v * 1000 }'
}

# The first Set-Cookie (name=value) of the response headers in file $1.
cookie_in() {
    awk -F'[ ;]' 'tolower($1) == "set-cookie:" { print $2; exit }' "$1" | tr -d '\r'
}

# The machine's load average (1, 5 and 15 minutes), for the record of a run.
load_average() {
    cut -d' ' -f1-3 /proc/loadavg
}

# Signs bench1 (bench/credentials.yml) in on the Micro bench app at port $1 and prints the
# session cookie (name=value) a browser holds afterwards: GET /signin gives a session and its
# CSRF token, POST /signin signs in, and the first page after it (GET $3, default /page) takes
# the welcome message out of the session, which renews the cookie. Response heads go to
# folder $2.
micro_sign_in() {
    local port="$1" out="$2" page="${3:-/page}" form token cookie renewed
    form="$(curl -sS -D "$out/h-form" "http://127.0.0.1:$port/signin")"
    token="$(printf '%s' "$form" | sed -n 's/.*name="_csrf" value="\([^"]*\)".*/\1/p' | head -n1)"
    cookie="$(cookie_in "$out/h-form")"
    [ -n "$token" ] && [ -n "$cookie" ] || fail "GET /signin on port $port gave no CSRF token or no session cookie"
    curl -sS -o /dev/null -D "$out/h-signin" -H "Cookie: $cookie" \
        --data "_csrf=$token&username=bench1&password=bench-password" "http://127.0.0.1:$port/signin"
    cookie="$(cookie_in "$out/h-signin")"
    [ -n "$cookie" ] || fail "POST /signin on port $port set no session cookie"
    curl -sS -o /dev/null -D "$out/h-first" -H "Cookie: $cookie" "http://127.0.0.1:$port$page"
    renewed="$(cookie_in "$out/h-first")"
    printf '%s' "${renewed:-$cookie}"
}

# Stops the server whose PID the variable named $1 holds (TERM, then waits for it), and
# empties the variable; nothing when it is empty.
stop_pid_in() {
    local name="$1" pid="${!1}"
    [ -n "$pid" ] || return 0
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    printf -v "$name" '%s' ""
}
