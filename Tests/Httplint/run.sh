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

source "$repo/Tests/Support/sample-app.sh"

# 1. httplint.
if ! "$python" -c 'import httplint' 2>/dev/null; then
    say "installing httplint (PyPI)"
    "$python" -m pip install -q --disable-pip-version-check httplint
fi
say "httplint $("$python" -c 'import httplint; print(httplint.__version__)')"

# 2. The app.
sample_app_build
port="$(sample_app_free_port "${PORT:-4620}")"
base_url="http://127.0.0.1:$port"
log="$(mktemp "${TMPDIR:-/tmp}/micro-httplint.XXXXXX")"

cleanup() { sample_app_stop_all TERM; rm -f "$log"; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

say "serving $base_url (production mode, credentials.yml)"
secret="$("$python" -c 'import secrets; print(secrets.token_hex(32))')"
sample_app_start "$log" PORT="$port" MICRO_ENV=production MICRO_ALLOW_DEMO_USERS=1 MICRO_SESSION_SECRET="$secret"
sample_app_wait "$base_url/css/app.css" "$SAMPLE_APP_PID" "$log" || exit 1

# 3. The checks.
status=0
timeout 120 "$python" "$repo/Tests/Httplint/check.py" "$base_url" || status=$?
if [ "$status" -ne 0 ]; then
    say "FAILED (status $status) after $((SECONDS - started)) s; the server's last lines:"
    grep -v ' GET \| POST ' "$log" | tail -n 10 | sed 's/^/    /' || true
    exit "$status"
fi
say "passed in $((SECONDS - started)) s"
