#!/usr/bin/env bash
# Two builds of a server, A and B, compared on CPU time per request: both run at once on CPU 0,
# each loaded by its own wrk on CPU 1, for ROUNDS rounds. Whatever else the machine does slows
# both alike, so B/A holds to about 1% where one server after the other drifts by 10% or more.
# Usage: bench/compare.sh BINARY_A BINARY_B [PATH]
#        (env: DURATION=6 seconds per round, ROUNDS=5, CONNECTIONS=64 per server,
#         SERVER_LOOPS= event loops per server, empty (the default) for NIO's own count,
#         SIGN_IN=1 to load PATH as bench1 signed in: each server signs bench1 in through its
#         own form before each round, and is loaded with its own session cookie (two builds
#         may write different cookie formats);
#         SIGN_INS=1 to load POST /signin instead, bench1...bench8 in turn with the right
#         password (bench/signin.lua; use CONNECTIONS=8), counting only the sign-ins;
#         A_ENV, B_ENV: more environment for one server, NAME=VALUE words;
#         A_SCHEME, B_SCHEME: http (the default) or https, for a server A_ENV or B_ENV gives
#         MICRO_TLS_CERT and MICRO_TLS_KEY (bench/tls.sh); its certificate is not checked;
#         CLOSE=1 to close each connection after its request, so that every request pays
#         for a new connection (and, over https, a handshake, resumed where the server
#         allows); not with SIGN_INS=1, whose script sets its own headers;
#         HOST_NAME=localhost to name the servers so (in the URL, so in Host) instead of
#         127.0.0.1, for what Micro offers only at a name, such as passkeys)
# Keep a build before a change with `cp bench/.build/release/MicroBench /tmp/MicroBench.before`.
# See bench/README.md ("Comparing two builds").
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: bench/compare.sh BINARY_A BINARY_B [PATH]" >&2
    exit 2
fi
A="$(realpath "$1")"
B="$(realpath "$2")"
TARGET="${3:-/hello}"
DURATION="${DURATION:-6}"
ROUNDS="${ROUNDS:-5}"
CONNECTIONS="${CONNECTIONS:-64}"
A_PORT="${A_PORT:-18201}"
B_PORT="${B_PORT:-18202}"
A_SCHEME="${A_SCHEME:-http}"
B_SCHEME="${B_SCHEME:-http}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "error: ROUNDS must be 1 or more" >&2; exit 2; }
source "$ROOT/bench/lib.sh"
# Both servers share CPU 0: NIO's own count of loops unless SERVER_LOOPS says (server_loops in bench/lib.sh).
server_loops ""
for scheme in "$A_SCHEME" "$B_SCHEME"; do
    [[ "$scheme" =~ ^https?$ ]] || { echo "error: A_SCHEME and B_SCHEME are http or https, not '$scheme'" >&2; exit 2; }
done
HOST_NAME="${HOST_NAME:-127.0.0.1}"
[[ "$HOST_NAME" =~ ^(127\.0\.0\.1|localhost)$ ]] || { echo "error: HOST_NAME is 127.0.0.1 or localhost, not '$HOST_NAME'" >&2; exit 2; }
if [ "${CLOSE:-0}" = 1 ] && [ "${SIGN_INS:-0}" = 1 ]; then
    echo "error: CLOSE=1 does not apply to SIGN_INS=1: bench/signin.lua makes each request's headers itself" >&2
    exit 2
fi
A_URL="$A_SCHEME://$HOST_NAME:$A_PORT"
B_URL="$B_SCHEME://$HOST_NAME:$B_PORT"
for binary in "$A" "$B"; do
    [ -x "$binary" ] || { echo "error: $binary is not an executable" >&2; exit 2; }
done
if [ "$(nproc)" -lt 2 ]; then
    echo "error: needs two cores (servers on CPU 0, wrk on CPU 1)" >&2
    exit 2
fi
ensure_wrk

# A port something already listens on (another engineer's benchmark on this shared machine)
# would pass wait_ready with that server's answers, and its sessions, made under another
# secret, would be measured or refused here: stop instead.
for port in "$A_PORT" "$B_PORT"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "error: port $port is in use (another benchmark?); set A_PORT and B_PORT to free ones" >&2
        exit 2
    fi
done

OUT="$(mktemp -d "${TMPDIR:-/tmp}/micro-compare.XXXXXX")"
A_PID=""
B_PID=""
wa=""
wb=""
cleanup() {
    for pid in $wa $wb $A_PID $B_PID; do kill "$pid" 2>/dev/null || true; done
    for pid in $wa $wb $A_PID $B_PID; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM

# Both from the repository's root, as bench/run.sh starts them (MicroBench serves public/ there).
cd "$ROOT"
SECRET="$(random_secret)"
read -ra A_EXTRA <<<"${A_ENV:-}"
read -ra B_EXTRA <<<"${B_ENV:-}"
MICRO_SESSION_SECRET="$SECRET" MICRO_ENV=production PORT="$A_PORT" taskset -c 0 env "${A_EXTRA[@]}" "$A" >"$OUT/a.log" 2>&1 &
A_PID=$!
MICRO_SESSION_SECRET="$SECRET" MICRO_ENV=production PORT="$B_PORT" taskset -c 0 env "${B_EXTRA[@]}" "$B" >"$OUT/b.log" 2>&1 &
B_PID=$!
wait_ready "$A_PORT" "$A_PID"
wait_ready "$B_PORT" "$B_PID"

# The requests of wrk output $1 (with SIGN_INS=1, the sign-ins, which bench/signin.lua counts);
# fails (naming it) when there are none or any went wrong.
requests() {
    if [ "${SIGN_INS:-0}" != 1 ]; then wrk_requests "$1"; return; fi
    local count
    count="$(awk '/^Signed in:/ { print ($6 == 0 ? $3 + 0 : 0) }' "$1")"
    if [ -z "$count" ] || [ "$count" -eq 0 ]; then
        echo "error: a run did not sign in cleanly; see $1" >&2
        cat "$1" >&2
        exit 1
    fi
    echo "$count"
}

# wrk's options for the load, made afresh before each round, for A and for B. With SIGN_IN=1:
# bench1's session cookie, signed in through that server's own form (GET /signin for the session
# and its CSRF token, POST /signin, then one page to take the welcome flash out of the session:
# the steady cookie a browser then holds). A fresh one each round: Micro renews a cookie more than
# a minute old, and wrk would keep sending the old one. With SIGN_INS=1: bench/signin.lua over
# sessions of that server's sign-in form, with time for a sign-in that waits for a busy CPU. Each
# server's own: two builds may write different cookie formats, and neither opens the other's.
A_OPTIONS=()
B_OPTIONS=()
A_PAIRS=""
B_PAIRS=""
source "$ROOT/bench/signin-pairs.sh"
# bench1's steady session cookie at the server at $1 (named $2 in errors).
session_cookie() {
    local url="$1" name="$2" jar="$OUT/jar" page token value
    rm -f "$jar"
    page="$(curl -ksS -c "$jar" "$url/signin")"
    token="$(printf '%s' "$page" | sed -n 's/.*name="_csrf" value="\([^"]*\)".*/\1/p' | head -n1)"
    [ -n "$token" ] || { echo "error: no CSRF token on $name's /signin" >&2; exit 1; }
    curl -ksS -o /dev/null -b "$jar" -c "$jar" --data "_csrf=$token&username=bench1&password=bench-password" "$url/signin"
    curl -ksS -o /dev/null -b "$jar" -c "$jar" "$url$TARGET"
    value="$(awk '$6 == "micro.session" { print $7 }' "$jar")"
    [ -n "$value" ] || { echo "error: $name's sign-in gave no session cookie" >&2; exit 1; }
    printf '%s' "$value"
}
sign_in() {
    if [ "${SIGN_INS:-0}" = 1 ]; then
        signin_pairs "$A_URL" "$OUT"
        A_PAIRS="$SIGNIN_PAIRS"
        signin_pairs "$B_URL" "$OUT"
        B_PAIRS="$SIGNIN_PAIRS"
        A_OPTIONS=(-s "$ROOT/bench/signin.lua" --timeout 60s)
        B_OPTIONS=("${A_OPTIONS[@]}")
        return 0
    fi
    [ "${SIGN_IN:-0}" = 1 ] || return 0
    local a b
    a="$(session_cookie "$A_URL" A)" || exit 1
    b="$(session_cookie "$B_URL" B)" || exit 1
    A_OPTIONS=(-H "Cookie: micro.session=$a")
    B_OPTIONS=(-H "Cookie: micro.session=$b")
}
# Connection: close on every request: the server closes after answering, and wrk opens anew.
CONNECTION_OPTIONS=()
[ "${CLOSE:-0}" = 1 ] && CONNECTION_OPTIONS=(-H "Connection: close")

# A warm-up, both at once.
sign_in
SIGNIN_PAIRS="$A_PAIRS" taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d2s "${A_OPTIONS[@]}" "${CONNECTION_OPTIONS[@]}" "$A_URL$TARGET" >/dev/null &
wa=$!
SIGNIN_PAIRS="$B_PAIRS" taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d2s "${B_OPTIONS[@]}" "${CONNECTION_OPTIONS[@]}" "$B_URL$TARGET" >/dev/null &
wb=$!
wait "$wa"
wait "$wb"

echo "A: $A"
echo "B: $B"
echo "A over $A_SCHEME, B over $B_SCHEME$([ "${CLOSE:-0}" = 1 ] && echo ", a new connection per request")"
echo "$([ "${SIGN_INS:-0}" = 1 ] && echo "POST /signin (sign-ins counted)" || echo "GET $TARGET"), wrk -t1 -c$CONNECTIONS -d${DURATION}s against each at once (event loops: ${SERVER_LOOPS:-as NIO chooses}); CPU µs per request"
echo
echo "| round | A µs | B µs | B/A CPU per request | A req/s | B req/s |"
echo "| ---: | ---: | ---: | ---: | ---: | ---: |"
RATIOS=()
RATES=()
# A few sign-ins a second want a decimal.
RATE_FORMAT="$([ "${SIGN_INS:-0}" = 1 ] && echo %.2f || echo %.0f)"
for round in $(seq 1 "$ROUNDS"); do
    sign_in
    a0="$(cpu_ticks "$A_PID")"; b0="$(cpu_ticks "$B_PID")"
    SIGNIN_PAIRS="$A_PAIRS" taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" "${A_OPTIONS[@]}" "${CONNECTION_OPTIONS[@]}" "$A_URL$TARGET" >"$OUT/a-$round.txt" &
    wa=$!
    SIGNIN_PAIRS="$B_PAIRS" taskset -c 1 wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" "${B_OPTIONS[@]}" "${CONNECTION_OPTIONS[@]}" "$B_URL$TARGET" >"$OUT/b-$round.txt" &
    wb=$!
    wait "$wa"
    wait "$wb"
    a1="$(cpu_ticks "$A_PID")"; b1="$(cpu_ticks "$B_PID")"
    na="$(requests "$OUT/a-$round.txt")"
    nb="$(requests "$OUT/b-$round.txt")"
    line="$(awk -v a="$((a1 - a0))" -v b="$((b1 - b0))" -v na="$na" \
        -v nb="$nb" -v hz="$(getconf CLK_TCK)" -v d="$DURATION" -v r="$round" -v rate="$RATE_FORMAT" 'BEGIN {
            ua = a / hz / na * 1e6; ub = b / hz / nb * 1e6
            printf "%d %.2f %.2f %.3f " rate " " rate " %.4f\n", r, ua, ub, ub / ua, na / d, nb / d, nb / na
        }')"
    read -r _ ua ub ratio ra rb rr <<<"$line"
    echo "| $round | $ua | $ub | $ratio | $ra | $rb |"
    RATIOS+=("$ratio")
    RATES+=("$ra $rb $rr")
done
echo
echo "Median B/A CPU per request: $(printf '%s\n' "${RATIOS[@]}" | median) (below 1: B is cheaper)"
printf '%s\n' "${RATES[@]}" | awk '{ a[NR] = $1; b[NR] = $2; r[NR] = $3 } END {
    printf "Median req/s: A %s, B %s; median B/A req/s: %.3f\n", middle(a, NR), middle(b, NR), middle(r, NR)
}
function middle(v, n,    i, j, t) {
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}'
echo "wrk output in $OUT"
