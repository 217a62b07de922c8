#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster of its own:
#   bash Tests/Postgres/with-postgres.sh swift test --filter MicroPostgresTests
# Installs Debian's postgresql when missing, makes a cluster in a temporary folder (as the
# unprivileged user `postgres` when run as root: initdb refuses root), starts it on a free port
# of 127.0.0.1 with its own socket folder, exports
#   MICRO_TEST_DATABASE_URL  postgres://micro:micro@127.0.0.1:PORT/micro
#   MICRO_TEST_PG_CTL        a command that takes pg_ctl's arguments for this cluster
#                            ("$MICRO_TEST_PG_CTL stop -m immediate", "... start"), run as
#                            the cluster's owner
# runs the command, and stops the server by its PID at the end, whatever happened.
set -euo pipefail

find_bindir() {
    local dir
    for dir in /usr/lib/postgresql/*/bin; do
        [[ -x "$dir/initdb" ]] && { echo "$dir"; return 0; }
    done
    return 1
}

if ! bindir=$(find_bindir); then
    echo "with-postgres: installing postgresql from Debian" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2 \
        || { apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2; }
    bindir=$(find_bindir)
fi

folder=$(mktemp -d /tmp/micro-postgres.XXXXXX)
owner=$(id -un)
as_owner() { "$@"; }
if [[ $(id -u) == 0 ]]; then
    owner=postgres
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    chown "$owner" "$folder"
    as_owner() { runuser -u "$owner" -- "$@"; }
fi

server_pid=""
cleanup() {
    local status=$?
    if [[ -f "$folder/data/postmaster.pid" ]]; then
        server_pid=$(head -1 "$folder/data/postmaster.pid" 2>/dev/null || true)
    fi
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill -INT "$server_pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$folder"
    exit $status
}
trap cleanup EXIT INT TERM

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
echo micro > "$folder/password"
chown "$owner" "$folder/password" 2>/dev/null || true
as_owner "$bindir/initdb" -D "$folder/data" -U micro --pwfile="$folder/password" -A scram-sha-256 \
    --no-sync -E UTF8 --locale=C >"$folder/initdb.log" 2>&1 || { cat "$folder/initdb.log" >&2; exit 1; }
mkdir -p "$folder/socket"
chown "$owner" "$folder/socket"
cat >> "$folder/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$folder/socket'
fsync = off
# (synchronous_commit stays on: the outage test stops the server abruptly and expects
# committed rows to be there when it is back.)
full_page_writes = off
max_connections = 200
CONF
pg_ctl=(as_owner "$bindir/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -t 30)
"${pg_ctl[@]}" start >/dev/null || { cat "$folder/server.log" >&2; exit 1; }
server_pid=$(head -1 "$folder/data/postmaster.pid")
PGPASSWORD=micro "$bindir/psql" -h 127.0.0.1 -p "$port" -U micro -d postgres -qc "CREATE DATABASE micro" >/dev/null

export MICRO_TEST_DATABASE_URL="postgres://micro:micro@127.0.0.1:$port/micro?sslmode=disable"
if [[ $(id -u) == 0 ]]; then
    export MICRO_TEST_PG_CTL="runuser -u $owner -- $bindir/pg_ctl -D $folder/data -l $folder/server.log -w -t 30"
else
    export MICRO_TEST_PG_CTL="$bindir/pg_ctl -D $folder/data -l $folder/server.log -w -t 30"
fi
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (PID $server_pid)" >&2
set +e
"$@"
status=$?
set -e
exit $status
