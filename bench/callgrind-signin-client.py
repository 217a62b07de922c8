#!/usr/bin/env python3
"""Sign-ins for bench/callgrind-signin.sh: first the forms, then the sign-ins alone.

Usage: callgrind-signin-client.py forms PORT COUNT FILE   GET /signin COUNT times (a session
                                                          and its CSRF token each), kept in FILE
       callgrind-signin-client.py post PORT FILE          POST /signin with each, bench1...bench8
                                                          in turn with the right password

Each sign-in must answer a 303 to /; the first that does not stops the client with exit
status 1, naming it. One connection per request, as browsers signing in are.
"""
import http.client
import re
import sys


def forms(port: int, count: int, path: str) -> int:
    with open(path, "w") as out:
        for number in range(count):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            connection.request("GET", "/signin")
            response = connection.getresponse()
            page = response.read().decode()
            cookie = (response.getheader("Set-Cookie") or "").split(";")[0]
            token = re.search(r'name="_csrf" value="([^"]*)"', page)
            connection.close()
            if not cookie or not token:
                print(f"error: GET /signin {number + 1} gave no session cookie or no CSRF token", file=sys.stderr)
                return 1
            out.write(f"{cookie}\t{token.group(1)}\tbench{number % 8 + 1}\n")
    return 0


def post(port: int, path: str) -> int:
    with open(path) as lines:
        for number, line in enumerate(lines):
            cookie, token, user = line.rstrip("\n").split("\t")
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
            body = f"_csrf={token}&username={user}&password=bench-password"
            connection.request("POST", "/signin", body=body, headers={
                "Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded",
                "User-Agent": "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"})
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status != 303 or response.getheader("Location") != "/":
                print(f"error: sign-in {number + 1} ({user}) answered {response.status} to {response.getheader('Location')}", file=sys.stderr)
                return 1
    return 0


def main() -> int:
    if sys.argv[1] == "forms":
        return forms(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    return post(int(sys.argv[2]), sys.argv[3])


if __name__ == "__main__":
    sys.exit(main())
