#!/usr/bin/env bash
# What HTTPS costs Micro against plain HTTP: one build run twice by bench/compare.sh, A over
# http and B over https (MICRO_TLS_CERT and MICRO_TLS_KEY, a P-256 certificate made here), in
# three loads: GET /hello on kept-alive connections, GET /page signed in on kept-alive
# connections, and GET /hello with a new connection per request (for B a TLS handshake each,
# resumed from an earlier session where the server allows it, as a browser's would be).
# Usage: bench/tls.sh [BINARY]     (default: builds and runs bench/.build/release/MicroBench;
#        DURATION, ROUNDS, CONNECTIONS, SERVER_LOOPS as bench/compare.sh takes them; TMPDIR
#        without spaces, as the certificate's path goes through B_ENV's words)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/bench/lib.sh"

command -v openssl >/dev/null 2>&1 || fail "openssl is needed to make the certificate (apt-get install openssl)"
BINARY="${1:-}"
if [ -z "$BINARY" ]; then
    swift build -c release --package-path "$ROOT/bench" --product MicroBench
    BINARY="$ROOT/bench/.build/release/MicroBench"
fi

KEYS="$(mktemp -d "${TMPDIR:-/tmp}/micro-tls-bench.XXXXXX")"
trap 'rm -rf "$KEYS"' EXIT
# The key readable by its owner only: Micro refuses a key file others can read.
(umask 077 && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
    -keyout "$KEYS/key.pem" -out "$KEYS/cert.pem" 2>"$KEYS/openssl.log") \
    || fail "openssl could not make the certificate: $(cat "$KEYS/openssl.log")"
[[ "$KEYS" != *" "* ]] || fail "the certificate's folder $KEYS has a space; set TMPDIR to a folder without one"

# Each run's settings given in full, so that none of the caller's (CLOSE, SIGN_IN, A_ENV...)
# changes what a heading says.
compare() {
    env A_SCHEME=http B_SCHEME=https A_ENV= B_ENV="MICRO_TLS_CERT=$KEYS/cert.pem MICRO_TLS_KEY=$KEYS/key.pem" \
        SIGN_INS=0 HOST_NAME=127.0.0.1 "$@"
}
echo "## GET /hello, kept-alive connections"
compare CLOSE=0 SIGN_IN=0 "$ROOT/bench/compare.sh" "$BINARY" "$BINARY" /hello
echo
echo "## GET /page signed in, kept-alive connections"
compare CLOSE=0 SIGN_IN=1 "$ROOT/bench/compare.sh" "$BINARY" "$BINARY" /page
echo
echo "## GET /hello, a new connection per request"
compare CLOSE=1 SIGN_IN=0 "$ROOT/bench/compare.sh" "$BINARY" "$BINARY" /hello
