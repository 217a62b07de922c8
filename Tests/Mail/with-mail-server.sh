#!/usr/bin/env bash
# Runs a command against real mail servers: aiosmtpd (PyPI) on free ports of 127.0.0.1, four of
# them (Tests/Mail/server.py): plain, STARTTLS required with a login, implicit TLS (smtps), and
# a plain one that offers no STARTTLS.
#
#   bash Tests/Mail/with-mail-server.sh swift test --skip-build --filter SmtpServerTests
#
# Installs aiosmtpd into a virtual environment of its own (under ${MAIL_VENV:-.build-mail-venv})
# when missing, makes a throwaway CA and a certificate it signs for `localhost` (and a second CA
# that signs nothing) with openssl, starts the servers, exports
#   MICRO_TEST_SMTP_PLAIN_PORT, MICRO_TEST_SMTP_STARTTLS_PORT, MICRO_TEST_SMTP_TLS_PORT,
#   MICRO_TEST_SMTP_NOTLS_PORT   the four servers' ports
#   MICRO_TEST_SMTP_CA_FILE      the CA that signed their certificate
#   MICRO_TEST_SMTP_OTHER_CA_FILE  a CA that did not
#   MICRO_TEST_SMTP_LOGIN, MICRO_TEST_SMTP_PASSWORD  what the servers' AUTH takes
#   MICRO_TEST_SMTP_MAILDIR      where each server keeps what it receives (plain/, starttls/,
#                                tls/, notls/: NNNN.eml and NNNN.json)
# runs the command (which may drop root: the files are readable by every user, the CA's key
# and the server's excepted), and stops the servers by their PID at the end, whatever happened.
# Its files are in a temporary folder (KEEP_LOGS=1 keeps it).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
say() { printf '[mail] %s\n' "$*"; }
source "$repo/Tests/Support/sample-app.sh"
export PYTHONDONTWRITEBYTECODE=1
if [ $# -eq 0 ]; then
    echo "usage: bash Tests/Mail/with-mail-server.sh COMMAND [ARGUMENT...]" >&2
    exit 2
fi

# 1. aiosmtpd.
venv="${MAIL_VENV:-$repo/.build-mail-venv}"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import aiosmtpd' 2>/dev/null; then
    say "installing aiosmtpd into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "aiosmtpd==1.4.6"
fi
python="$venv/bin/python"
PYTHON="$python"

work="$(mktemp -d "${TMPDIR:-/tmp}/micro-mail.XXXXXX")"
# The command may run as another user: it reads the CA files and the maildir.
chmod 755 "$work"
server_pid=""
cleanup() {
    local status=$?
    [ -z "$server_pid" ] || stop_by_pid "$server_pid" TERM
    if [ "$status" -ne 0 ] && [ -s "$work/server.log" ]; then
        say "last lines of server.log:"
        tail -n 20 "$work/server.log" | sed 's/^/    /' || true
    fi
    if [ "${KEEP_LOGS:-}" = 1 ]; then say "logs kept in $work"; else rm -rf "$work"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 2. A CA, the servers' certificate (for the name localhost only: a client that asks for
# 127.0.0.1 must refuse it), and a CA that signed nothing.
mkdir -m 755 "$work/tls"
make_ca() {
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=$2" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -keyout "$work/tls/$1.key" -out "$work/tls/$1.crt" 2>/dev/null
}
make_ca ca "Micro test mail CA"
make_ca other-ca "Micro test stranger CA"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=localhost" \
    -keyout "$work/tls/server.key" -out "$work/tls/server.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' >"$work/tls/server.ext"
openssl x509 -req -in "$work/tls/server.csr" -CA "$work/tls/ca.crt" -CAkey "$work/tls/ca.key" -CAcreateserial \
    -days 2 -extfile "$work/tls/server.ext" -out "$work/tls/server.crt" 2>/dev/null
chmod 600 "$work/tls/"*.key
chmod 644 "$work/tls/"*.crt

# 3. The servers.
port_plain="$(sample_app_free_port 4850)"
port_starttls="$(sample_app_free_port $((port_plain + 1)))"
port_tls="$(sample_app_free_port $((port_starttls + 1)))"
port_notls="$(sample_app_free_port $((port_tls + 1)))"
login="micro-mail"
password="$("$python" -c 'import secrets; print(secrets.token_hex(12))')"
mkdir -m 755 "$work/maildir"
"$python" "$repo/Tests/Mail/server.py" --plain-port "$port_plain" --starttls-port "$port_starttls" --tls-port "$port_tls" \
    --notls-port "$port_notls" --certificate "$work/tls/server.crt" --key "$work/tls/server.key" \
    --login "$login" --password "$password" --maildir "$work/maildir" --ready "$work/ready" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 300); do
    [ -e "$work/ready" ] && break
    running "$server_pid" || { say "the servers did not start"; exit 1; }
    sleep 0.1
done
[ -e "$work/ready" ] || { say "the servers did not start within 30 s"; exit 1; }
say "aiosmtpd $("$python" -c 'import aiosmtpd; print(aiosmtpd.__version__)') (PID $server_pid): plain $port_plain, starttls $port_starttls, tls $port_tls, notls $port_notls"

export MICRO_TEST_SMTP_PLAIN_PORT="$port_plain" MICRO_TEST_SMTP_STARTTLS_PORT="$port_starttls" \
    MICRO_TEST_SMTP_TLS_PORT="$port_tls" MICRO_TEST_SMTP_NOTLS_PORT="$port_notls" \
    MICRO_TEST_SMTP_CA_FILE="$work/tls/ca.crt" MICRO_TEST_SMTP_OTHER_CA_FILE="$work/tls/other-ca.crt" \
    MICRO_TEST_SMTP_LOGIN="$login" MICRO_TEST_SMTP_PASSWORD="$password" MICRO_TEST_SMTP_MAILDIR="$work/maildir"

# 4. The command.
status=0
"$@" || status=$?
exit "$status"
