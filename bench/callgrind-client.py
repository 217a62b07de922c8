#!/usr/bin/env python3
"""A fixed number of GET requests over one keep-alive connection, for bench/callgrind.sh.

Usage: callgrind-client.py PORT PATH COUNT [COOKIE | "Authorization: ..."]

Each answer must be a 200 with no Set-Cookie (a steady state: the count of instructions per
request is then the same from run to run); the first one that is not stops the client with
exit status 1, naming it. Prints the bytes of the last answer's body.
"""
import http.client
import sys


def main() -> int:
    port, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    cookie = sys.argv[4] if len(sys.argv) > 4 else ""
    headers = {"Cookie": cookie} if cookie else {}
    if cookie.startswith("Authorization: "):
        headers = {"Authorization": cookie[len("Authorization: "):]}
    # Generous: under callgrind a request takes milliseconds.
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    size = 0
    for number in range(count):
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            print(f"error: request {number + 1} of GET {path} answered {response.status}", file=sys.stderr)
            return 1
        if response.getheader("Set-Cookie"):
            print(f"error: request {number + 1} of GET {path} set a cookie (not a steady state)", file=sys.stderr)
            return 1
        size = len(body)
    connection.close()
    print(size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
