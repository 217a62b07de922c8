#!/usr/bin/env python3
"""Signs in to a SampleApp served from a bare Debian root (run by Tests/BareServer/run.sh).

  check.py BASE_URL USERNAME PASSWORD NAME

A protected page first sends to /signin; the user added in the root by the binary's own
add-user signs in through the form; the protected page then answers with their name, NAME. Exits
non-zero, saying which check failed, otherwise.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Instances"))
from scenarios import Browser, signed_in, to_sign_in  # noqa: E402


def main():
    base, username, password, name = sys.argv[1:5]
    browser = Browser(base)
    first = browser.get("/protected")
    if not to_sign_in(first):
        sys.exit(f"/protected before sign-in: {first}, expected a redirect to /signin")
    answer = browser.sign_in(username, password)
    if answer.status not in (302, 303):
        sys.exit(f"sign-in: {answer.status}, expected a redirect ({answer.body[:200]!r})")
    page = browser.get("/protected")
    if not signed_in(page, name):
        sys.exit(f"/protected after sign-in: {page.status}, without {name}")
    print(f"signed in as {username}; /protected answered {page.status} for {name}")


if __name__ == "__main__":
    main()
