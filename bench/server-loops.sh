# Sourced by the bench scripts: how many event loops each NIO server runs (raw NIO, Micro and
# Hummingbird alike). Usage: server_loops DEFAULT, DEFAULT a number, or empty for NIO's own count.
#
# NIO sizes its loops to the machine's cores and cgroup limit and does not see taskset's mask: a
# server pinned to one core would run two loops there, the kernel switching between them at its
# 4 ms tick (that tick was the p99 at -c64, for raw NIO as for Micro). SERVER_LOOPS overrides the
# default (empty: NIO's own count); a NIO_SINGLETON_GROUP_LOOP_COUNT already set is kept.
server_loops() {
    SERVER_LOOPS="${SERVER_LOOPS-${NIO_SINGLETON_GROUP_LOOP_COUNT-$1}}"
    if [ -z "$SERVER_LOOPS" ]; then
        unset NIO_SINGLETON_GROUP_LOOP_COUNT
    elif [[ "$SERVER_LOOPS" =~ ^[1-9][0-9]*$ ]]; then
        export NIO_SINGLETON_GROUP_LOOP_COUNT="$SERVER_LOOPS"
    else
        echo "error: SERVER_LOOPS must be a positive number of event loops, or empty; it is '$SERVER_LOOPS'" >&2
        exit 2
    fi
}
