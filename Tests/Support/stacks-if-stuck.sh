#!/usr/bin/env bash
# stacks-if-stuck.sh SECONDS COMMAND...: runs COMMAND; if it still runs after SECONDS, prints the
# stack of every thread of each test process (gdb, installed from Debian then), and lets it go
# on. A hang that the tests' own time limits cannot end (every thread of Swift's cooperative
# pool blocked: the limits need one too) is then named in the log, thread by thread, before the
# CI step's limit kills it. Needs root (gdb attaches to a process it did not start).
set -uo pipefail
after=$1
shift
"$@" &
child=$!
(
    # Checked every few seconds rather than one long sleep: a sleep left behind would hold the
    # step's output open after the command ended.
    for ((waited = 0; waited < after; waited += 5)); do
        sleep 5
        kill -0 "$child" 2>/dev/null || exit 0
    done
    command -v gdb >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gdb >/dev/null 2>&1 || exit 0
    for pid in $(pgrep -f 'MicroPackageTests.xctest'); do
        echo "!!! still running after $after s: the threads of test process $pid" >&2
        gdb -p "$pid" -batch -ex "thread apply all bt 40" 2>&1 | grep -E '^(Thread|#)' | cut -c1-400 >&2
    done
) &
watcher=$!
wait "$child"
status=$?
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
exit $status
