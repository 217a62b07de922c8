#!/usr/bin/env bash
# Single sign-on against a real OpenID Provider: django-oidc-provider (PyPI) on a free port of
# 127.0.0.1, and five SampleApps (two `existing` instances sharing a secret, one `any` with
# an allowed domain and passwords off, one `existing` with its users and links in a SQLite
# table, one with required groups and role sync); Tests/Oidc/flow.py walks the flow through
# the first three with an HTTP client, Tests/Oidc/browser.py through the fourth in a headless
# Chromium (driven by chromedriver and selenium), whose link must then survive a restart of
# the app, and flow.py moves people between the provider's groups before the fifth's sign-ins.
#
#   bash Tests/Oidc/run.sh
#
# Installs Django, django-oidc-provider and selenium into a virtual environment of its own
# (under ${OIDC_VENV:-.build-oidc-venv}) when missing, and Debian's chromium and
# chromium-driver as Tests/Browser/run.sh does; where Chromium cannot start at all, the browser
# walk alone is skipped, saying so. Everything it starts is stopped by its PID at
# the end, whatever happened; its files are in a temporary folder (KEEP_LOGS=1 keeps it).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
say() { printf '[oidc] %s\n' "$*"; }
source "$repo/Tests/Support/sample-app.sh"
source "$repo/Tests/Support/oidc-provider.sh"
started=$SECONDS

# 1. The provider's Python packages.
oidc_provider_install
python="$OIDC_PYTHON"
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    say "installing chromium and chromium-driver (Debian)"
    as_root apt-get update -q >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >/dev/null
fi

# The app's user's (Tests/Support/sample-app.sh): the apps read the client's secret and write
# users.db (and SQLite's journal beside it) here; the provider and Chromium, root's, too.
work="$(sample_app_folder micro-oidc)"
driver_pid=""
cleanup() {
    local status=$?
    if [ -n "$driver_pid" ]; then
        # The Chromium a failed walk left behind is chromedriver's child: stopped by its PID.
        for child in $(cat "/proc/$driver_pid/task/$driver_pid/children" 2>/dev/null); do kill -TERM "$child" 2>/dev/null || true; done
        stop_by_pid "$driver_pid" TERM
    fi
    [ -z "$OIDC_PROVIDER_PID" ] || stop_by_pid "$OIDC_PROVIDER_PID" TERM
    sample_app_stop_all
    leave_work "$status" "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 2. Ports, then the provider (its database made first: a key, the client, two users).
sample_app_build
port_idp="$(sample_app_free_port 4700)"
port_one="$(sample_app_free_port $((port_idp + 1)))"
port_two="$(sample_app_free_port $((port_one + 1)))"
port_any="$(sample_app_free_port $((port_two + 1)))"
port_db="$(sample_app_free_port $((port_any + 1)))"
port_groups="$(sample_app_free_port $((port_db + 1)))"
oidc_provider_start "$work" "$port_idp" "http://127.0.0.1:$port_one/auth/oidc/callback" \
    "http://127.0.0.1:$port_any/auth/oidc/callback" "http://127.0.0.1:$port_db/auth/oidc/callback" \
    "http://127.0.0.1:$port_groups/auth/oidc/callback"
issuer="$OIDC_ISSUER"
client_secret="$OIDC_CLIENT_SECRET"

# 3. The apps.
secret="$("$python" -c 'import secrets; print(secrets.token_hex(32))')"
printf '%s' "$client_secret" | as_app_user tee "$work/client-secret" >/dev/null
for port in "$port_one" "$port_two"; do
    sample_app_start "$work/app-$port.log" PORT="$port" MICRO_ENV=development MICRO_SESSION_SECRET="$secret" \
        MICRO_PUBLIC_URL="http://127.0.0.1:$port_one" MICRO_OIDC_ISSUER="$issuer" MICRO_OIDC_CLIENT_ID=micro-sample \
        MICRO_OIDC_CLIENT_SECRET_FILE="$work/client-secret" MICRO_OIDC_NAME="Test IdP"
    sample_app_wait "http://127.0.0.1:$port/css/app.css" "$SAMPLE_APP_PID" "$work/app-$port.log"
done
sample_app_start "$work/app-$port_any.log" PORT="$port_any" MICRO_ENV=development MICRO_OIDC_ISSUER="$issuer" \
    MICRO_OIDC_CLIENT_ID=micro-sample MICRO_OIDC_CLIENT_SECRET="$client_secret" MICRO_OIDC_NAME="Test IdP" \
    MICRO_OIDC_USERS=any MICRO_OIDC_ALLOWED_DOMAINS=example.com MICRO_PASSWORD_SIGNIN=off
sample_app_wait "http://127.0.0.1:$port_any/css/app.css" "$SAMPLE_APP_PID" "$work/app-$port_any.log"
# Users in a SQLite table: the identity links are kept beside them.
users_db="$work/users.db"
# Made for single sign-on only: linked by the claim on a first sign-in, as the walks below expect.
sample_app_run add-user user --db "$users_db" --name User --sso-only >/dev/null
start_db_app() {
    sample_app_start "$work/app-$port_db.log" PORT="$port_db" MICRO_ENV=development MICRO_USERS_DB="$users_db" \
        MICRO_OIDC_ISSUER="$issuer" MICRO_OIDC_CLIENT_ID=micro-sample MICRO_OIDC_CLIENT_SECRET="$client_secret" MICRO_OIDC_NAME="Test IdP"
    db_app_pid="$SAMPLE_APP_PID"
    sample_app_wait "http://127.0.0.1:$port_db/css/app.css" "$SAMPLE_APP_PID" "$work/app-$port_db.log"
}
start_db_app
say "SampleApp on $port_one and $port_two (existing, one secret), $port_any (any, example.com, passwords off) and $port_db (existing, users in $users_db)"

# 4. The flow.
status=0
timeout 300 "$python" "$repo/Tests/Oidc/flow.py" --issuer "$issuer" --existing "http://127.0.0.1:$port_one" \
    --twin "http://127.0.0.1:$port_two" --any "http://127.0.0.1:$port_any" || status=$?
if [ "$status" -ne 0 ]; then say "FAILED after $((SECONDS - started)) s"; exit "$status"; fi

# 5. The browser walk, then the link it made, kept across a restart of the app.
chromium_binary="${CHROMIUM_BINARY:-$(command -v chromium)}"
if ! probe=$(timeout 60 "$chromium_binary" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --user-data-dir="$work/probe-profile" --dump-dom 'data:text/html,<p>ready</p>' 2>&1) \
        || ! grep -q '<p>ready</p>' <<<"$probe"; then
    say "Chromium's output:"; tail -n 5 <<<"$probe" | sed 's/^/    /'
    say "SKIP: the browser walk: Chromium ($chromium_binary) cannot start headless on this machine"
else
    port_driver="$(sample_app_free_port $((port_groups + 1)))"
    chromedriver --port="$port_driver" >"$work/chromedriver.log" 2>&1 &
    driver_pid=$!
    sample_app_wait "http://127.0.0.1:$port_driver/status" "$driver_pid" "$work/chromedriver.log" chromedriver
    say "$("$chromium_binary" --version 2>/dev/null | head -n 1), chromedriver PID $driver_pid"
    CHROMIUM_BINARY="$chromium_binary" timeout 300 "$python" "$repo/Tests/Oidc/browser.py" \
        --app "http://127.0.0.1:$port_db" --issuer "$issuer" --driver "http://127.0.0.1:$port_driver" || status=$?
    if [ "$status" -ne 0 ]; then say "FAILED after $((SECONDS - started)) s"; exit "$status"; fi
fi
db_flow() { timeout 120 "$python" "$repo/Tests/Oidc/flow.py" --issuer "$issuer" --database-app "http://127.0.0.1:$port_db" --database "$users_db" "$@"; }
db_flow --phase linked || status=$?
if [ "$status" -ne 0 ]; then say "FAILED after $((SECONDS - started)) s"; exit "$status"; fi
stop_by_pid "$db_app_pid" INT
# Renamed at the provider: only the link kept in users.db can make the new name `user` here.
(cd "$OIDC_PROVIDER_DIR" && "$python" rename.py user user-renamed)
start_db_app
db_flow --phase restarted || status=$?
if [ "$status" -ne 0 ]; then say "FAILED after $((SECONDS - started)) s"; exit "$status"; fi

# 6. Groups at every single sign-on: a fifth app with required groups and roles synced from the
# provider's `groups` claim, over store users of its own (ada and bo, linked at their first
# sign-in); flow.py moves bo between the provider's groups.
groups_db="$work/groups.db"
for name in ada bo; do sample_app_run add-user "$name" --db "$groups_db" --sso-only >/dev/null; done
sample_app_start "$work/app-$port_groups.log" PORT="$port_groups" MICRO_ENV=development MICRO_USERS_DB="$groups_db" \
    MICRO_OIDC_ISSUER="$issuer" MICRO_OIDC_CLIENT_ID=micro-sample MICRO_OIDC_CLIENT_SECRET="$client_secret" MICRO_OIDC_NAME="Test IdP" \
    MICRO_OIDC_REQUIRED_GROUPS=admin,staff MICRO_OIDC_ROLE_SYNC=on
sample_app_wait "http://127.0.0.1:$port_groups/css/app.css" "$SAMPLE_APP_PID" "$work/app-$port_groups.log"
timeout 120 "$python" "$repo/Tests/Oidc/flow.py" --issuer "$issuer" --groups-app "http://127.0.0.1:$port_groups" \
    --groups-database "$groups_db" --provider-dir "$OIDC_PROVIDER_DIR" --phase groups || status=$?
if [ "$status" -ne 0 ]; then say "FAILED after $((SECONDS - started)) s"; exit "$status"; fi
say "passed in $((SECONDS - started)) s"
