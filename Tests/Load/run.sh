#!/usr/bin/env bash
# Load and fault checks of the sample app on 127.0.0.1 (Tests/Load/load.py):
#
#   bash Tests/Load/run.sh                      # all: soak, slow, overflow, disconnect, flood
#   CHECKS=slow,overflow bash Tests/Load/run.sh # some of them
#   SOAK_SECONDS=300 bash Tests/Load/run.sh     # a longer soak
#
# Builds SampleApp (the debug build `swift test` leaves, so it costs a link at most), runs it
# from a scratch folder holding copies of views/, public/ (plus an 8 MiB public/large.bin for
# responses cut off midway) and credentials.yml, in production mode, and prints the figures of
# each check. Exits non-zero, naming the target, when one is missed. About three minutes.
set -euo pipefail

started=$SECONDS
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
python="${PYTHON:-python3}"

say() { printf '[load] %s\n' "$*"; }

source "$repo/Tests/Support/sample-app.sh"

if ! command -v "$python" >/dev/null; then
    say "installing python3 (Debian)"
    as_root apt-get update -q >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3 >/dev/null
fi

# 1. Descriptors: 500 slow clients and the server's own sockets share this limit.
wanted=8192
hard="$(ulimit -Hn)"
if [ "$hard" != unlimited ] && [ "$hard" -lt "$wanted" ]; then wanted=$hard; fi
if [ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt "$wanted" ]; then ulimit -Sn "$wanted"; fi
if [ "$(ulimit -Sn)" != unlimited ] && [ "$(ulimit -Sn)" -lt 2048 ]; then
    say "the open-files limit is $(ulimit -Sn) (hard $hard); these checks need 2048: raise it (ulimit -n)"
    exit 1
fi

# 2. The app.
sample_app_build

# The app's working folder, its user's (Tests/Support/sample-app.sh), with its copies made by
# that user; load.py writes the servers' logs there as whoever runs it.
workdir="$(sample_app_folder micro-load)"
cleanup() {
    if [ "${KEEP_LOGS:-}" = 1 ]; then say "logs kept in $workdir"; else rm -rf "$workdir"; fi
}
trap cleanup EXIT
as_app_user cp -R views public credentials.yml "$workdir/"
head -c $((8 << 20)) /dev/urandom | as_app_user tee "$workdir/public/large.bin" >/dev/null

say "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), open-files limit $(ulimit -Sn), $("$python" --version)"

# 3. The checks (the script stops the servers it starts, also when it fails).
status=0
timeout 300 "$python" "$repo/Tests/Load/load.py" --binary "$SAMPLE_APP_COMMAND" --workdir "$workdir" \
    --checks "${CHECKS:-soak,slow,overflow,disconnect,flood}" --soak-seconds "${SOAK_SECONDS:-60}" || status=$?

if [ "$status" -ne 0 ]; then
    [ "$status" -eq 124 ] && say "the checks took more than 300 s"
    for log in "$workdir"/server-*.log; do
        [ -f "$log" ] || continue
        say "last lines of $(basename "$log"):"
        grep -v ' GET \| POST ' "$log" | tail -n 8 | sed 's/^/    /' || true
    done
    say "FAILED after $((SECONDS - started)) s"
    exit "$status"
fi
say "passed in $((SECONDS - started)) s"
