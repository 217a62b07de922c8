#!/usr/bin/env bash
# SampleApp on a bare Debian server, as the article "Putting a tool on a server"
# (Sources/Micro/Micro.docc/PuttingAToolOnAServer.md) puts a tool there: the binary
# built with Swift's runtime linked in (--static-swift-stdlib) and stripped, copied with views/
# and public/ into a Debian root that debootstrap makes (bookworm, minbase) with only the
# runtime packages the article names, and started there with chroot in production, as the
# article's unit would start it: its own user, no capabilities. Inside the root, `ldd` finds
# every library the binary needs and `systemd-analyze verify` every program the unit runs; the
# binary's own add-user puts a user in a users table; from outside, the user signs in through
# the form and is served a protected page.
#
#   bash Tests/BareServer/run.sh
#
# Runs as root (debootstrap and chroot) and needs Debian's mirror (MIRROR, default
# http://deb.debian.org/debian); installs debootstrap when missing. CONFIGURATION is the build:
# debug, the default (the build `swift test` left, recompiled for the link's flags), or release
# as the article builds it. The root is made afresh in a temporary folder and removed at the end,
# and the server stopped by its PID whatever happened.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
say() { printf '[bare server] %s\n' "$*"; }
source "$repo/Tests/Support/sample-app.sh"

configuration="${CONFIGURATION:-debug}"
mirror="${MIRROR:-http://deb.debian.org/debian}"
[ "$(id -u)" -eq 0 ] || { say "run me as root: debootstrap and chroot need it"; exit 1; }

# The runtime packages, from the article's line, so that the article says what is tested.
article=Sources/Micro/Micro.docc/PuttingAToolOnAServer.md
packages=$(sed -nE 's/^apt-get install --no-install-recommends (.*[^ ]) +# Micro.s runtime libraries.*$/\1/p' "$article" | head -1)
[ -n "$packages" ] || { say "$article: no 'apt-get install --no-install-recommends ...   # Micro's runtime libraries' line"; exit 1; }

if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap"
    apt-get update -qq
    apt-get install -y -qq debootstrap >/dev/null
fi

# The build's flags, from the article's command, so that the article says what is tested.
read -r -a flags <<<"$(sed -nE 's/^swift build -c release --product LabTool (--static-swift-stdlib.*[^ ]) *$/\1/p' "$article" | head -1)"
[ ${#flags[@]} -gt 0 ] || { say "$article: no 'swift build -c release --product LabTool --static-swift-stdlib ...' line"; exit 1; }
root="$(mktemp -d "${TMPDIR:-/tmp}/micro-bare.XXXXXX")"
log="$(mktemp "${TMPDIR:-/tmp}/micro-bare-log.XXXXXX")"
server=""
cleanup() {
    if [ -n "$server" ]; then stop_by_pid "$server" TERM; fi
    # Whatever is mounted in the root (its /proc, or what a failed debootstrap left), deepest
    # first, before the root goes; rm stays on this file system in any case.
    findmnt -rn -o TARGET | grep -F "$root/" | sort -r | while read -r mounted; do umount -l "$mounted" || true; done
    rm -rf --one-file-system "$root" || true
    rm -f "$log"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

say "building SampleApp ($configuration, ${flags[*]})"
started=$SECONDS
if ! swift build -c "$configuration" --product SampleApp "${flags[@]}" >"$log" 2>&1; then
    # The whole output but the compile lines: the linker's own message is in it.
    grep -vE '^\[[0-9]+/[0-9]+\] Compiling ' "$log"
    exit 1
fi
say "built in $((SECONDS - started)) s"
binary="$(swift build -c "$configuration" --product SampleApp "${flags[@]}" --show-bin-path)/SampleApp"

# And systemd, which a server has and minbase has not: its unit files let systemd-analyze
# verify the article's unit against what the runtime packages installed.
say "debootstrap bookworm (minbase) with: $packages, and systemd"
started=$SECONDS
if ! debootstrap --variant=minbase --include="${packages// /,},systemd" bookworm "$root" "$mirror" >"$log" 2>&1; then
    tail -n 20 "$log"
    exit 1
fi
say "the root took $((SECONDS - started)) s"

# A server's / is open to its users (mktemp made the folder its owner's only), and its /proc:
# Swift's runtime reads the arguments from /proc/self/cmdline.
chmod 755 "$root"
mount -t proc proc "$root/proc"
mkdir -p "$root/opt/sampleapp" "$root/var/lib/sampleapp"
cp "$binary" "$root/opt/sampleapp/SampleApp"
strip "$root/opt/sampleapp/SampleApp"     # as the article sends it
cp -r views public "$root/opt/sampleapp/"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin "$@"; }

linked=$(in_root ldd /opt/sampleapp/SampleApp)
if grep -q "not found" <<<"$linked" || grep -qiE "libswift|libFoundation|libdispatch" <<<"$linked"; then
    say "the binary needs what the root does not have:"
    echo "$linked"
    exit 1
fi
say "ldd in the root: $(awk '{print $1}' <<<"$linked" | tr '\n' ' ')"

# The service's own user, as the article makes it: it owns the state folder, and the server and
# the commands run as it.
in_root /usr/sbin/useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin sampleapp
in_root chown sampleapp:sampleapp /var/lib/sampleapp
in_root chmod 700 /var/lib/sampleapp

# The article's unit, renamed for SampleApp as it says to rename it, where the article puts it:
# systemd-analyze verify, reading the root, finds every program it runs (ExecStart=, and
# ExecReload='s kill, which only the article's runtime packages bring).
if ! command -v systemd-analyze >/dev/null; then
    apt-get update -qq
    apt-get install -y -qq systemd >/dev/null
fi
sed -e 's#labtool#sampleapp#g; s#LabTool#SampleApp#g' deploy/labtool.service >"$root/etc/systemd/system/sampleapp.service"
if ! said=$(systemd-analyze verify --root="$root" /etc/systemd/system/sampleapp.service 2>&1) || [ -n "$said" ]; then
    say "systemd-analyze verify of the unit in the root:"
    echo "$said"
    exit 1
fi
say "the unit verifies in the root"

password="a long unusual phrase"
if ! added=$(in_root /usr/sbin/runuser -u sampleapp -- /opt/sampleapp/SampleApp add-user ann --name "Ann Example" --role admin --cost 4 --db /var/lib/sampleapp/users.db <<<"$password" 2>&1); then
    say "add-user failed in the root: $added"
    exit 1
fi
say "$added"

port="$(sample_app_free_port "${PORT:-4640}")"
secret="$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')"
# As the unit starts it: its own user, no supplementary groups, no capabilities (none to inherit,
# none it could gain).
chroot "$root" /usr/bin/setpriv --reuid=sampleapp --regid=sampleapp --clear-groups --inh-caps=-all \
    --bounding-set=-all --no-new-privs /usr/bin/env -i PATH=/usr/bin:/bin MICRO_ENV=production MICRO_SESSION_SECRET="$secret" \
    MICRO_USERS_DB=/var/lib/sampleapp/users.db HOST=127.0.0.1 PORT="$port" \
    /bin/sh -c 'cd /opt/sampleapp && exec ./SampleApp' >"$log" 2>&1 &
server=$!
sample_app_wait "http://127.0.0.1:$port/" "$server" "$log" || exit 1
say "serving from the root on port $port"

if ! "${PYTHON:-python3}" Tests/BareServer/check.py "http://127.0.0.1:$port" ann "$password" "Ann Example"; then
    say "the server's log:"; tail -n 20 "$log" | sed 's/^/    /'
    exit 1
fi
stop_by_pid "$server" TERM
server=""
say "passed in $((SECONDS - started)) s"
