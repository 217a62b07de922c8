#!/usr/bin/env bash
# The README's first command, `swift run SampleApp`, as whoever runs this script (CI runs it as
# an ordinary user, as a developer would on a laptop): on a free local port, the demo user of
# credentials.yml signs in through the form and is served a protected page; then Ctrl-C's
# signal stops the server. Run by .ci/run after the README's tests, which leave the build.
#
#   bash Tests/ReadmeRun/run.sh
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
say() { printf '[readme run] %s\n' "$*"; }
source "$repo/Tests/Support/sample-app.sh"

port="$(sample_app_free_port "${PORT:-4660}")"
log="$(mktemp "${TMPDIR:-/tmp}/micro-readme-run.XXXXXX")"
server=""
cleanup() {
    if [ -n "$server" ]; then stop_by_pid "$server" INT; fi
    rm -f "$log"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

say "swift run SampleApp as $(id -un) (uid $(id -u)) on port $port"
PORT="$port" swift run SampleApp >"$log" 2>&1 &
server=$!
# The first run may still link the product: a minute more than sample_app_wait's own limit.
for _ in $(seq 120); do
    grep -q "Listening\|http://" "$log" 2>/dev/null && break
    running "$server" || break
    sleep 1
done
sample_app_wait "http://127.0.0.1:$port/" "$server" "$log" || exit 1

if ! "${PYTHON:-python3}" Tests/BareServer/check.py "http://127.0.0.1:$port" user secret123 user; then
    say "the server's log:"; tail -n 20 "$log" | sed 's/^/    /'
    exit 1
fi
stop_by_pid "$server" INT
server=""
say "passed"
