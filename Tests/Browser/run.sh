#!/usr/bin/env bash
# Walks through the sample app in a real headless Chromium (Tests/Browser/walkthrough.py).
#
#   bash Tests/Browser/run.sh
#
# Installs what is missing (Debian's chromium and chromium-driver, selenium from PyPI), builds
# SampleApp, serves it on a free local port (PORT, default 4599), runs the walkthrough and stops
# the server. Screenshots and the server's log go to browser-artifacts/ at the repo root.
# Exits with the walkthrough's status; prints "SKIP: ..." and exits 0 only when Chromium itself
# cannot start on this machine.
set -euo pipefail

started=$SECONDS
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
artifacts="$repo/browser-artifacts"
python="${PYTHON:-python3}"

say() { printf '[browser] %s\n' "$*"; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        say "need root to run: $*"; return 1; fi
}

# 1. What the walkthrough needs.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing chromium and chromium-driver (Debian)"
    as_root apt-get update -q >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null
fi
if ! "$python" -c 'import selenium' 2>/dev/null; then
    say "installing selenium (PyPI)"
    "$python" -m pip install -q --disable-pip-version-check selenium
fi

mkdir -p "$artifacts"
rm -f "$artifacts"/*.png "$artifacts"/server.log

# 2. Can Chromium start here at all? Only this decides a SKIP.
chromium_binary="${CHROMIUM_BINARY:-$(command -v chromium)}"
if ! probe=$(timeout 60 "$chromium_binary" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --user-data-dir="$(mktemp -d)" --dump-dom 'data:text/html,<p>ready</p>' 2>&1) \
        || ! grep -q '<p>ready</p>' <<<"$probe"; then
    say "Chromium's output:"; tail -n 5 <<<"$probe" | sed 's/^/    /'
    echo "SKIP: Chromium ($chromium_binary) cannot start headless on this machine"
    exit 0
fi
say "$("$chromium_binary" --version 2>/dev/null | head -n 1); $(chromedriver --version | head -n 1)"

# 3. The app.
say "building SampleApp"
swift build --product SampleApp 2>&1 | tail -n 3
binary="$(swift build --product SampleApp --show-bin-path)/SampleApp"

port="$("$python" - "${PORT:-4599}" <<'EOF'
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
EOF
)"
base_url="http://127.0.0.1:$port"

server_pid=""
stop_server() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -INT "$server_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    server_pid=""
}
trap stop_server EXIT
trap 'stop_server; exit 130' INT TERM

say "serving $base_url (development mode, credentials.yml)"
HOST=127.0.0.1 PORT="$port" MICRO_ENV=development "$binary" >"$artifacts/server.log" 2>&1 &
server_pid=$!

if ! "$python" - "$base_url" "$server_pid" <<'EOF'
import os, sys, time, urllib.request
url, pid = sys.argv[1] + "/", int(sys.argv[2])
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
EOF
then
    say "SampleApp did not come up; its log:"; tail -n 20 "$artifacts/server.log" | sed 's/^/    /'
    exit 1
fi

# 4. The walkthrough.
status=0
BASE_URL="$base_url" ARTIFACTS="$artifacts" CHROMIUM_BINARY="$chromium_binary" \
    timeout 300 "$python" "$repo/Tests/Browser/walkthrough.py" || status=$?
stop_server

case "$status" in
    0) say "passed in $((SECONDS - started)) s; screenshots in browser-artifacts/" ;;
    3) say "Chromium starts (see above) but chromedriver could not drive it: a failure, not a skip"; status=1 ;;
    124) say "the walkthrough took more than 300 s"; status=1 ;;
    *) say "FAILED (status $status) after $((SECONDS - started)) s; the server's last lines:"
       tail -n 10 "$artifacts/server.log" | sed 's/^/    /' ;;
esac
exit "$status"
