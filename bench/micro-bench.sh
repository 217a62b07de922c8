# Sourced by the bench scripts that load MicroBench alone (bench/signin-load.sh, bench/postgres.sh):
# installs wrk when it is missing, builds MicroBench in release mode unless SKIP_BUILD=1 (then the
# last build is used), and sets MICRO_BENCH to its path.
# Usage: micro_bench_build ROOT   (ROOT: the repository's root)
micro_bench_build() {
    command -v wrk >/dev/null 2>&1 || { apt-get update && apt-get install -y wrk; }
    if [ "${SKIP_BUILD:-0}" != 1 ]; then
        swift build -c release --package-path "$1/bench" --product MicroBench
    fi
    MICRO_BENCH="$(swift build -c release --package-path "$1/bench" --show-bin-path)/MicroBench"
}
