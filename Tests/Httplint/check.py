#!/usr/bin/env python3
"""Lints the sample app's answers with httplint, the library behind REDbot (run by run.sh).

  python3 Tests/Httplint/check.py http://127.0.0.1:4600

Asks a running SampleApp for its pages signed out and signed in (/, /signin, /protected, the
three tool pages, /signout), a page that does not exist, its static files (plain and
conditional), and the tools' JSON answers (results and errors), signs in and out as a browser
does (the form's `_csrf` field, the session cookie), and feeds each answer's status, header
fields and body to httplint's HttpResponseLinter, with the request beside it.

It fails (exit 1) when httplint rates anything in an answer "bad", or "warning" unless that
warning is one of ACCEPTED_WARNINGS below, each with the reason it holds for Micro. On top of
httplint's own notes it checks the rule of Micro's article on sessions and the safe defaults
(Sources/Micro/Micro.docc/SessionsAndSecureDefaults.md, Caching) that httplint computes but does not
judge: no answer that sets a cookie, and no dynamic answer (any but a static file's; each may
depend on the session), may be kept by a shared cache (httplint's `caching.store_shared`).

Needs httplint (run.sh installs it from PyPI when missing); otherwise only the standard library.
"""

import http.client
import re
import sys
import time
import urllib.parse

try:
    from httplint import HttpRequestLinter, HttpResponseLinter
    from httplint.note import levels
except ImportError:
    sys.exit("httplint is missing: python3 -m pip install httplint")

USERNAME, PASSWORD = "user", "secret123"
COOKIE_NAME = "micro.session"

# Warnings that are right for these answers, by httplint's note class name, each with its
# reason. None so far: the warnings httplint gave on Micro's answers were all about caching
# (FRESHNESS_HEURISTIC, "caches may assign their own freshness lifetime", on answers without
# Cache-Control; FRESHNESS_NO_CACHE_NO_VALIDATOR on `no-cache` without an ETag, a directive that
# cannot do what it asks), which is what this check is for: a warning fails it unless listed here.
ACCEPTED_WARNINGS = {}


class Client:
    """One browser-like client: keeps the session cookie it is given, over plain http.client."""

    def __init__(self, base):
        parts = urllib.parse.urlsplit(base)
        self.host, self.port = parts.hostname, parts.port
        self.cookies = {}

    def request(self, method, path, headers=None, form=None):
        headers = dict(headers or {})
        headers.setdefault("Host", f"{self.host}:{self.port}")
        headers.setdefault("User-Agent", "micro-httplint-check")
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Content-Length"] = str(len(body))
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            started = time.time()
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            content = response.read()
            answer = Answer(method, path, headers, body, response, content, started)
        finally:
            connection.close()
        for value in answer.all("Set-Cookie"):
            name, _, rest = value.partition("=")
            cookie_value = rest.split(";", 1)[0]
            if re.search(r";\s*max-age=0\b", value, re.IGNORECASE) or not cookie_value:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = cookie_value
        return answer

    def csrf_token(self, path):
        page = self.request("GET", path)
        match = re.search(r'name="_csrf" value="([^"]*)"', page.text)
        if not match:
            sys.exit(f"no _csrf field on {path}: {page.status}\n{page.text[:400]}")
        return page, match.group(1)


class Answer:
    """A request and its answer, as http.client saw them."""

    def __init__(self, method, path, request_headers, request_body, response, content, started):
        self.method, self.path = method, path
        self.request_headers, self.request_body = request_headers, request_body
        self.status, self.reason = response.status, response.reason
        self.version = {10: b"1.0", 11: b"1.1"}.get(response.version, b"1.1")
        self.headers = response.getheaders()  # in order, repeated fields kept
        self.content = content
        self.started = started

    def all(self, name):
        return [value for field, value in self.headers if field.lower() == name.lower()]

    def first(self, name):
        values = self.all(name)
        return values[0] if values else None

    @property
    def text(self):
        return self.content.decode("utf-8", "replace")


def lint(answer):
    """httplint's linter for the answer, with its request beside it, content fed and finished."""
    request = HttpRequestLinter(start_time=answer.started)
    request.process_request_topline(answer.method.encode(), answer.path.encode(), b"1.1")
    request.process_headers([(name.encode(), value.encode("latin-1")) for name, value in answer.request_headers.items()])
    if answer.request_body:
        request.feed_content(answer.request_body)
    request.finish_content(True)

    response = HttpResponseLinter(start_time=answer.started, _related=request)
    response.is_head_response = answer.method == "HEAD"
    response.process_response_topline(answer.version, str(answer.status).encode(), answer.reason.encode("latin-1"))
    response.process_headers([(name.encode("latin-1"), value.encode("latin-1")) for name, value in answer.headers])
    response.feed_content(answer.content)
    response.finish_content(True)
    return response


def all_notes(linter):
    """Every note of the linter and their subnotes, flattened."""
    pending = list(linter.notes)
    while pending:
        note = pending.pop(0)
        yield note
        pending.extend(getattr(note, "subnotes", []) or [])


problems = []


def check(label, answer, static=False):
    """Lints one answer; records what fails. A dynamic answer (not `static`) may depend on the
    client's session (Micro's default is `private`), so no shared cache may keep it."""
    linter = lint(answer)
    bad = []
    for note in all_notes(linter):
        name = type(note).__name__
        if note.level == levels.BAD:
            bad.append(f"[bad] {name}: {note.summary}")
        elif note.level == levels.WARN and name not in ACCEPTED_WARNINGS:
            bad.append(f"[warning] {name}: {note.summary}")
    sets_cookie = bool(answer.all("Set-Cookie"))
    if (sets_cookie or not static) and linter.caching.store_shared:
        why = "sets a cookie" if sets_cookie else "is dynamic"
        bad.append(f"[micro] a shared cache may store this answer, which {why} "
                   f"(Cache-Control: {answer.first('Cache-Control')!r}, Vary: {answer.first('Vary')!r})")
    summary = f"{answer.method} {answer.path} -> {answer.status}, Cache-Control: {answer.first('Cache-Control')}"
    if bad:
        print(f"FAIL {label}: {summary}")
        for line in bad:
            print(f"       {line}")
        problems.append(label)
    else:
        print(f"ok   {label}: {summary}")
    return answer


PAGES = ["/", "/signin", "/protected", "/tools/date-conversion", "/tools/data-encoding", "/tools/data-encryption", "/signout"]
JSON = {"Accept": "application/json"}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    base = sys.argv[1].rstrip("/")

    # Signed out: a fresh client for each page, as a first visit.
    for path in PAGES:
        check(f"signed out {path}", Client(base).request("GET", path))
    check("signed out, a page that does not exist", Client(base).request("GET", "/no-such-page"))
    check("signed out, a JSON tool answer", Client(base).request("GET", "/tools/data-encoding?op=base64-encode&input=foobar", headers=JSON))

    # Static files, plain and revalidated.
    files = Client(base)
    stylesheet = check("static /css/app.css", files.request("GET", "/css/app.css"), static=True)
    if not (stylesheet.first("ETag") and stylesheet.first("Last-Modified")):
        problems.append("static /css/app.css has no validators")
        print("FAIL static /css/app.css: no ETag or Last-Modified")
    check("static /css/app.css, revalidated", files.request("GET", "/css/app.css", headers={"If-None-Match": stylesheet.first("ETag") or ""}), static=True)

    # Signing in, as a browser does: the form (which starts the session), then the POST.
    browser = Client(base)
    page, token = browser.csrf_token("/signin")
    check("sign-in form (new session)", page)
    signed_in = browser.request("POST", "/signin", form={"_csrf": token, "username": USERNAME, "password": PASSWORD})
    check("sign-in POST (redirect)", signed_in)
    if signed_in.status != 303 or signed_in.first("Location") != "/":
        sys.exit(f"signing in failed: {signed_in.status} {signed_in.first('Location')}")

    # Signed in: every page, the static files with the cookie, the JSON answers.
    for path in PAGES:
        check(f"signed in {path}", browser.request("GET", path))
    check("signed in, a page that does not exist", browser.request("GET", "/no-such-page"))
    check("signed in, static /css/app.css", browser.request("GET", "/css/app.css"), static=True)
    check("JSON result (data encoding)", browser.request("GET", "/tools/data-encoding?op=base64-encode&input=foobar", headers=JSON))
    check("JSON error (data encoding)", browser.request("GET", "/tools/data-encoding?op=base64-decode&input=%21%21%21", headers=JSON))
    check("JSON result (date conversion)", browser.request("GET", "/tools/date-conversion?millis=0&zone=UTC&format=iso8601", headers=JSON))
    _, token = browser.csrf_token("/tools/data-encryption")
    check("JSON result (data encryption, POST)", browser.request("POST", "/tools/data-encryption", headers=JSON, form={"_csrf": token, "op": "sha256", "input": "foobar"}))

    # Signing out.
    _, token = browser.csrf_token("/signout")
    check("sign-out POST (redirect)", browser.request("POST", "/signout", form={"_csrf": token}))
    check("home page after sign-out", browser.request("GET", "/"))

    if problems:
        print(f"\n{len(problems)} answer(s) with problems: " + "; ".join(problems))
        return 1
    print("\nno problems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
