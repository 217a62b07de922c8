#!/usr/bin/env bash
# What HTTPS costs Micro against plain HTTP: one build run twice by bench/compare.sh, A over
# http and B over https (MICRO_TLS_CERT and MICRO_TLS_KEY, a P-256 certificate made here), in
# three loads: GET /hello on kept-alive connections, GET /page signed in on kept-alive
# connections, and GET /hello with a new connection per request (a TLS handshake each for B).
# Usage: bench/tls.sh [BINARY]     (default: builds and runs bench/.build/release/MicroBench;
#        DURATION, ROUNDS, CONNECTIONS, SERVER_LOOPS as bench/compare.sh takes them)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/bench/lib.sh"

BINARY="${1:-}"
if [ -z "$BINARY" ]; then
    swift build -c release --package-path "$ROOT/bench" --product MicroBench
    BINARY="$ROOT/bench/.build/release/MicroBench"
fi
command -v openssl >/dev/null 2>&1 || fail "openssl is needed to make the certificate (apt-get install openssl)"

KEYS="$(mktemp -d "${TMPDIR:-/tmp}/micro-tls-bench.XXXXXX")"
trap 'rm -rf "$KEYS"' EXIT
# The key readable by its owner only: Micro refuses a key file others can read.
(umask 077 && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
    -keyout "$KEYS/key.pem" -out "$KEYS/cert.pem" 2>/dev/null)

export B_SCHEME=https
export B_ENV="MICRO_TLS_CERT=$KEYS/cert.pem MICRO_TLS_KEY=$KEYS/key.pem"
echo "## GET /hello, kept-alive connections"
"$ROOT/bench/compare.sh" "$BINARY" "$BINARY" /hello
echo
echo "## GET /page signed in, kept-alive connections"
SIGN_IN=1 "$ROOT/bench/compare.sh" "$BINARY" "$BINARY" /page
echo
echo "## GET /hello, a new connection per request"
CLOSE=1 "$ROOT/bench/compare.sh" "$BINARY" "$BINARY" /hello
