#!/usr/bin/env bash
# SampleApp behind a sign-in proxy: nginx with auth_request asks a front door (door.py, what
# oauth2-proxy answers) who the browser is, and passes it on in X-Forwarded-User
# (MICRO_PROXY_AUTH=header, MICRO_PROXY_USERS=any); Tests/SignInProxy/scenarios.py walks it.
#
#   bash Tests/SignInProxy/run.sh
#
# Installs Debian's nginx when missing (as root, or through sudo). Everything it starts is on
# free ports of 127.0.0.1 and stopped by its PID at the end, whatever happened; its files are
# in a temporary folder (KEEP_LOGS=1 keeps it).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
python="${PYTHON:-python3}"
export PYTHONDONTWRITEBYTECODE=1
started=$SECONDS
say() { printf '[sign-in proxy] %s\n' "$*"; }
source "$repo/Tests/Support/sample-app.sh"

if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
    say "installing nginx (Debian)"
    as_root apt-get update -q >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nginx >/dev/null
fi
nginx="$(command -v nginx || echo /usr/sbin/nginx)"
sample_app_build

work="$(mktemp -d "${TMPDIR:-/tmp}/micro-sign-in-proxy.XXXXXX")"
chmod 755 "$work"
nginx_pid=""
door_pid=""
cleanup() {
    local status=$?
    [ -z "$nginx_pid" ] || stop_by_pid "$nginx_pid"
    [ -z "$door_pid" ] || stop_by_pid "$door_pid" TERM
    sample_app_stop_all
    leave_work "$status" "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_app="$(sample_app_free_port 4720)"
port_door="$(sample_app_free_port $((port_app + 1)))"
port_proxy="$(sample_app_free_port $((port_door + 1)))"

"$python" "$repo/Tests/SignInProxy/door.py" "$port_door" >"$work/door.log" 2>&1 &
door_pid=$!
sample_app_start "$work/app.log" PORT="$port_app" MICRO_TRUSTED_PROXIES=127.0.0.1 MICRO_PROXY_AUTH=header \
    MICRO_PROXY_USERS=any MICRO_PROXY_GROUPS_HEADER=X-Forwarded-Groups MICRO_PROXY_SIGNOUT_URL=/door/sign-out
sample_app_wait "http://127.0.0.1:$port_app/css/app.css" "$SAMPLE_APP_PID" "$work/app.log"

cat >"$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 64; }
http {
    access_log $work/nginx-access.log;
    client_body_temp_path $work/client-body;
    proxy_temp_path $work/proxy;
    fastcgi_temp_path $work/fastcgi;
    uwsgi_temp_path $work/uwsgi;
    scgi_temp_path $work/scgi;
    server {
        listen 127.0.0.1:$port_proxy;
        location /door/ {
            proxy_pass http://127.0.0.1:$port_door;
        }
        location = /auth {
            internal;
            proxy_pass http://127.0.0.1:$port_door/auth;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
        }
        location / {
            auth_request /auth;
            error_page 401 = @sign_in;
            auth_request_set \$door_user \$upstream_http_x_auth_request_user;
            auth_request_set \$door_groups \$upstream_http_x_auth_request_groups;
            # Replaces whatever the browser sent.
            proxy_set_header X-Forwarded-User \$door_user;
            proxy_set_header X-Forwarded-Groups \$door_groups;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_pass http://127.0.0.1:$port_app;
        }
        location @sign_in {
            return 302 /door/sign-in;
        }
    }
}
CONF
"$nginx" -t -q -p "$work" -c "$work/nginx.conf" -e "$work/nginx-error.log" || { cat "$work/nginx-error.log" >&2; exit 1; }
"$nginx" -p "$work" -c "$work/nginx.conf" -e "$work/nginx-error.log" &
nginx_pid=$!
sleep 1
running "$nginx_pid" || { cat "$work/nginx-error.log" >&2; exit 1; }
say "SampleApp on 127.0.0.1:$port_app behind nginx's auth_request on 127.0.0.1:$port_proxy, the door on $port_door"

timeout 120 "$python" "$repo/Tests/SignInProxy/scenarios.py" --proxy "http://127.0.0.1:$port_proxy" --log "$work/app.log"
say "passed in $((SECONDS - started)) s"
