#!/usr/bin/env bash
# Two instances of the sample app behind nginx, sharing one PostgreSQL (Tests/Instances/scenarios.py):
#
#   bash Tests/Instances/run.sh
#
# Installs Debian's nginx when missing (as root, or through sudo), runs itself again inside a
# throwaway PostgreSQL (Tests/Postgres/with-postgres.sh, which exports MICRO_TEST_DATABASE_URL;
# one already exported is used as it is), starts django-oidc-provider (Tests/Support/
# oidc-provider.sh, which installs it into a virtual environment when missing), builds
# SampleApp and starts two of it on free ports of 127.0.0.1 in production mode, with the same
# MICRO_SESSION_SECRET and MICRO_DATABASE_URL, 127.0.0.1 as their trusted proxy and the
# provider for single sign-on, then nginx in front of both, its configuration, PID file,
# logs and temporary folders in a temporary folder of its own (as root or as any user). Runs
# back-channel logout's first half (Tests/Instances/backchannel.py: a single sign-on ended by
# the provider's logout token, on both instances), the scenarios (users, a session on both,
# sign-out on both, the shared throttle, the client's address through nginx, one instance
# killed), restarts both instances and runs back-channel logout's second half (the ended
# session stays ended, the others go on); prints a summary and stops everything by its PID
# at the end, whatever happened. Exits non-zero when any check fails; KEEP_LOGS=1 keeps the
# logs' folder.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
python="${PYTHON:-python3}"
export MICRO_INSTANCES_STARTED="${MICRO_INSTANCES_STARTED:-$(date +%s)}"

say() { printf '[instances] %s\n' "$*"; }

source "$repo/Tests/Support/sample-app.sh"
source "$repo/Tests/Support/oidc-provider.sh"

# 1. nginx, then the database (this script again, inside with-postgres.sh).
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    say "installing nginx (Debian)"
    as_root apt-get update -q >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nginx >/dev/null
fi
nginx="$(command -v nginx || echo /usr/sbin/nginx)"
if [ -z "${MICRO_TEST_DATABASE_URL:-}" ]; then
    exec bash "$repo/Tests/Postgres/with-postgres.sh" bash "$repo/Tests/Instances/run.sh" "$@"
fi
database_url="$MICRO_TEST_DATABASE_URL"
oidc_provider_install

# 2. The provider, then the instances.
sample_app_build
# Readable by nginx's workers, which run as nobody when nginx is started as root.
work="$(mktemp -d "${TMPDIR:-/tmp}/micro-instances.XXXXXX")"
chmod 755 "$work"

nginx_pid=""
cleanup() {
    local status=$?
    [ -z "$nginx_pid" ] || stop_by_pid "$nginx_pid"
    sample_app_stop_all
    [ -z "$OIDC_PROVIDER_PID" ] || stop_by_pid "$OIDC_PROVIDER_PID" TERM
    # The instances' and nginx's logs are mostly requests: the lines before a failure are not.
    leave_work "$status" "$work" ' GET \| POST '
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

secret="$("$python" -c 'import secrets; print(secrets.token_hex(32))')"
port_one="$(sample_app_free_port 4660)"
port_two="$(sample_app_free_port $((port_one + 1)))"
port_proxy="$(sample_app_free_port $((port_two + 1)))"
port_idp="$(sample_app_free_port $((port_proxy + 1)))"
oidc_provider_start "$work" "$port_idp" "http://127.0.0.1:$port_one/auth/oidc/callback" "http://127.0.0.1:$port_two/auth/oidc/callback"
printf '%s' "$OIDC_CLIENT_SECRET" >"$work/client-secret"
# Both instances, started (again) on their ports; sets pids.
start_instances() {
    pids=()
    for port in "$port_one" "$port_two"; do
        sample_app_start "$work/instance-$port.log" PORT="$port" MICRO_ENV=production MICRO_SESSION_SECRET="$secret" \
            MICRO_DATABASE_URL="$database_url" MICRO_TRUSTED_PROXIES=127.0.0.1 MICRO_OIDC_ISSUER="$OIDC_ISSUER" \
            MICRO_OIDC_CLIENT_ID="$OIDC_CLIENT_ID" MICRO_OIDC_CLIENT_SECRET_FILE="$work/client-secret" MICRO_OIDC_NAME="Test IdP"
        pids+=("$SAMPLE_APP_PID")
    done
    sample_app_wait "http://127.0.0.1:$port_one/css/app.css" "${pids[0]}" "$work/instance-$port_one.log"
    sample_app_wait "http://127.0.0.1:$port_two/css/app.css" "${pids[1]}" "$work/instance-$port_two.log"
}
start_instances
say "SampleApp on 127.0.0.1:$port_one (PID ${pids[0]}) and 127.0.0.1:$port_two (PID ${pids[1]}), production, one secret, PostgreSQL, single sign-on"

# 3. nginx in front of both. A dead instance's requests go to the other (proxy_next_upstream;
# max_fails takes it out for fail_timeout). X-Upstream tells the scenarios which one answered.
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 256; }
http {
    access_log $work/nginx-access.log;
    client_body_temp_path $work/client-body;
    proxy_temp_path $work/proxy;
    fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi;
    scgi_temp_path $work/scgi;

    upstream micro {
        server 127.0.0.1:$port_one max_fails=1 fail_timeout=10s;
        server 127.0.0.1:$port_two max_fails=1 fail_timeout=10s;
    }
    server {
        listen 127.0.0.1:$port_proxy;
        location / {
            proxy_pass http://micro;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Host \$http_host;
            proxy_set_header X-Request-Id \$request_id;
            proxy_next_upstream error timeout;
            proxy_connect_timeout 2s;
            add_header X-Upstream \$upstream_addr always;
            add_header X-Nginx-Request-Id \$request_id always;
        }
    }
}
CONF
"$nginx" -t -q -p "$work" -c "$work/nginx.conf" -e "$work/nginx-error.log" || { cat "$work/nginx-error.log" >&2; exit 1; }
"$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/nginx-error.log" &
nginx_pid=$!
sample_app_wait "http://127.0.0.1:$port_proxy/css/app.css" "$nginx_pid" "$work/nginx-error.log" nginx
say "$("$nginx" -v 2>&1 | sed 's/^nginx version: //') on 127.0.0.1:$port_proxy (PID $nginx_pid)"

# 4. The scenarios: back-channel logout's first half while both instances run, the others
# (which end by killing instance one), then both restarted for back-channel logout's second half.
back_channel() {
    timeout 120 "$OIDC_PYTHON" "$repo/Tests/Instances/backchannel.py" --phase "$1" --one "http://127.0.0.1:$port_one" \
        --two "http://127.0.0.1:$port_two" --binary "$SAMPLE_APP_COMMAND" --database-url "$database_url" --state "$work/backchannel.json"
}
failed() {
    [ "$1" -eq 124 ] && say "$2 took more than its time"
    say "FAILED after $(($(date +%s) - MICRO_INSTANCES_STARTED)) s"
    exit "$1"
}
back_channel ended || failed $? "back-channel logout"
timeout 300 "$python" "$repo/Tests/Instances/scenarios.py" \
    --one "http://127.0.0.1:$port_one" --two "http://127.0.0.1:$port_two" --proxy "http://127.0.0.1:$port_proxy" \
    --binary "$SAMPLE_APP_COMMAND" --database-url "$database_url" --kill-pid "${pids[0]}" || failed $? "the scenarios"
restarted=$(date +%s)
sample_app_stop_all
start_instances
say "both instances restarted in $(($(date +%s) - restarted)) s (PIDs ${pids[*]})"
back_channel restarted || failed $? "back-channel logout after the restart"
say "passed in $(($(date +%s) - MICRO_INSTANCES_STARTED)) s"
