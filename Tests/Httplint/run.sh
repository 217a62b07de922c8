#!/usr/bin/env bash
# Lints the sample app's answers with httplint, the library behind REDbot (Tests/Httplint/check.py).
#
#   bash Tests/Httplint/run.sh
#
# Installs httplint from PyPI when it is missing, builds SampleApp, serves it in production mode
# (a random MICRO_SESSION_SECRET, credentials.yml) on a free local port (PORT, default 4620),
# runs the checks and stops the server. Exits with the checks' status; the server's log is
# printed when they fail.
set -euo pipefail

started=$SECONDS
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
python="${PYTHON:-python3}"

say() { printf '[httplint] %s\n' "$*"; }

# 1. httplint.
if ! "$python" -c 'import httplint' 2>/dev/null; then
    say "installing httplint (PyPI)"
    "$python" -m pip install -q --disable-pip-version-check httplint
fi
say "httplint $("$python" -c 'import httplint; print(httplint.__version__)')"

# 2. The app.
say "building SampleApp"
swift build --product SampleApp 2>&1 | tail -n 2
binary="$(swift build --product SampleApp --show-bin-path)/SampleApp"

port="$("$python" - "${PORT:-4620}" <<'PY'
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
)"
base_url="http://127.0.0.1:$port"
log="$(mktemp "${TMPDIR:-/tmp}/micro-httplint.XXXXXX")"

server_pid=""
stop_server() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    server_pid=""
}
cleanup() { stop_server; rm -f "$log"; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

say "serving $base_url (production mode, credentials.yml)"
secret="$("$python" -c 'import secrets; print(secrets.token_hex(32))')"
HOST=127.0.0.1 PORT="$port" MICRO_ENV=production MICRO_SESSION_SECRET="$secret" "$binary" >"$log" 2>&1 &
server_pid=$!

if ! "$python" - "$base_url" "$server_pid" <<'PY'
import os, sys, time, urllib.request
url, pid = sys.argv[1] + "/css/app.css", int(sys.argv[2])
deadline = time.time() + 30
while time.time() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("the server exited")
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            if answer.status == 200:
                sys.exit(0)
    except Exception:
        pass
    time.sleep(0.2)
sys.exit("the server did not answer within 30 s")
PY
then
    say "SampleApp did not come up; its log:"; tail -n 20 "$log" | sed 's/^/    /'
    exit 1
fi

# 3. The checks.
status=0
timeout 120 "$python" "$repo/Tests/Httplint/check.py" "$base_url" || status=$?
if [ "$status" -ne 0 ]; then
    say "FAILED (status $status) after $((SECONDS - started)) s; the server's last lines:"
    grep -v ' GET \| POST ' "$log" | tail -n 10 | sed 's/^/    /' || true
    exit "$status"
fi
say "passed in $((SECONDS - started)) s"
