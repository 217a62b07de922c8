#!/usr/bin/env bash
# Walks through the sample app in a real headless Chromium (Tests/Browser/walkthrough.py), then
# adds a passkey and signs in with it through Chromium's virtual authenticator
# (Tests/Browser/passkeys.py).
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

source "$repo/Tests/Support/sample-app.sh"

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
sample_app_build
port="$(sample_app_free_port "${PORT:-4599}")"
base_url="http://127.0.0.1:$port"

# The demo user in a users table, where the account pages can change its password; the table,
# its folder and SQLite's journal beside it are the app's user's, the folder removed at the end.
users_folder="$(sample_app_folder micro-browser)"
users_db="$users_folder/users.db"
trap 'sample_app_stop_all; rm -rf "$users_folder"' EXIT
trap 'exit 130' INT TERM
walk_password="a walk $RANDOM in the park"
printf '%s\n' "$walk_password" | sample_app_run add-user user --db "$users_db" --name User --role admin --cost 4 >/dev/null
# The passkeys' walk has a user of its own: the walkthrough changes its user's password.
passkey_password="keys $RANDOM under the mat"
printf '%s\n' "$passkey_password" | sample_app_run add-user keys --db "$users_db" --name "Key Holder" --cost 4 >/dev/null
say "serving $base_url (development mode, users in $users_db)"
sample_app_start "$artifacts/server.log" PORT="$port" MICRO_ENV=development MICRO_USERS_DB="$users_db"
sample_app_wait "$base_url/" "$SAMPLE_APP_PID" "$artifacts/server.log" || exit 1

# 4. The walkthrough.
status=0
BASE_URL="$base_url" ARTIFACTS="$artifacts" CHROMIUM_BINARY="$chromium_binary" WALK_PASSWORD="$walk_password" \
    timeout 300 "$python" "$repo/Tests/Browser/walkthrough.py" || status=$?
# Passkeys, at localhost: browsers give them to no IP address.
if [ "$status" -eq 0 ]; then
    BASE_URL="http://localhost:$port" ARTIFACTS="$artifacts" CHROMIUM_BINARY="$chromium_binary" PASSKEY_USER=keys \
        PASSKEY_PASSWORD="$passkey_password" timeout 180 "$python" "$repo/Tests/Browser/passkeys.py" || status=$?
fi
sample_app_stop_all

case "$status" in
    0) say "passed in $((SECONDS - started)) s; screenshots in browser-artifacts/" ;;
    3) say "Chromium starts (see above) but chromedriver could not drive it: a failure, not a skip"; status=1 ;;
    124) say "the walkthrough or the passkeys' walk took longer than its limit"; status=1 ;;
    *) say "FAILED (status $status) after $((SECONDS - started)) s; the server's last lines:"
       tail -n 10 "$artifacts/server.log" | sed 's/^/    /' ;;
esac
exit "$status"
