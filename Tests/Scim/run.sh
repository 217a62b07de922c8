#!/usr/bin/env bash
# SCIM 2.0 against a published compliance checker: scim2-tester (PyPI) run against SampleApp
# serving its users from a SQLite table, with a token made by `SampleApp scim-token`.
#
#   bash Tests/Scim/run.sh
#
# Installs scim2-tester into a virtual environment of its own (under
# ${SCIM_VENV:-.build-scim-venv}) when missing. Tests/Scim/check.py fails on any check that does
# not pass, but for any Micro refuses by design (none today), each named there with its reason. The app
# is stopped by its PID at the end, whatever happened; its files are in a temporary folder
# (KEEP_LOGS=1 keeps it).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
say() { printf '[scim] %s\n' "$*"; }
source "$repo/Tests/Support/sample-app.sh"

venv="${SCIM_VENV:-$repo/.build-scim-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import scim2_tester, httpx2' 2>/dev/null; then
    say "installing scim2-tester into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "scim2-tester[httpx2]==0.5.2"
fi

work="$(sample_app_folder micro-scim)"
cleanup() {
    local status=$?
    sample_app_stop_all
    leave_work "$status" "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

sample_app_build
port="$(sample_app_free_port 4820)"
users_db="$work/users.db"
printf 'scim-admin-password-1\n' | sample_app_run add-user admin --db "$users_db" --role admin --cost 4 >/dev/null
token="$(sample_app_run scim-token --db "$users_db" --name scim2-tester | tail -n 1)"
secret="$("$venv/bin/python" -c 'import secrets; print(secrets.token_hex(32))')"
sample_app_start "$work/app.log" PORT="$port" MICRO_ENV=development MICRO_SESSION_SECRET="$secret" MICRO_USERS_DB="$users_db" \
    MICRO_PUBLIC_URL="http://127.0.0.1:$port"
sample_app_wait "http://127.0.0.1:$port/css/app.css" "$SAMPLE_APP_PID" "$work/app.log"
say "SampleApp at http://127.0.0.1:$port/scim/v2 (PID $SAMPLE_APP_PID)"

"$venv/bin/python" Tests/Scim/check.py "http://127.0.0.1:$port/scim/v2" "$token"
say "passed"
