"""The sign-in proxy scenarios: SampleApp behind nginx's auth_request, which asks the door
(door.py) who the browser is and passes it on in X-Forwarded-User.

    python3 scenarios.py --proxy http://127.0.0.1:PORT --log APP.LOG
"""
import argparse
import http.cookiejar
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

failures = []


def check(name, ok, detail=""):
    print(("  ok  " if ok else "  FAIL") + f" {name}" + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    def __init__(self, base):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())

    def request(self, path, data=None, headers=None):
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        request = urllib.request.Request(self.base + path, data=body, headers=headers or {})
        try:
            with self.opener.open(request, timeout=10) as answer:
                return answer.status, dict(answer.headers), answer.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode("utf-8", "replace")

    def sign_in_at_the_door(self, name, groups=""):
        return self.request("/door/sign-in?" + urllib.parse.urlencode({"as": name, "groups": groups}))


def shown_name(page):
    """The signed-in user's name as the protected page shows it."""
    found = re.search(r"Only signed-in users see this page, ([^.<]*)\.", page)
    return found.group(1).strip().lower() if found else None


def csrf(page):
    found = re.search(r'name="_csrf" value="([^"]+)"', page)
    return found.group(1) if found else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--proxy", required=True)
    parser.add_argument("--log", required=True)
    options = parser.parse_args()

    print("A browser nobody signed in at the door")
    stranger = Browser(options.proxy)
    status, headers, _ = stranger.request("/protected")
    check("the door sends it to sign in", status == 302 and "/door/sign-in" in headers.get("Location", ""), f"{status} {headers.get('Location')}")
    # A header of its own does not get past nginx, which replaces it.
    status, _, _ = stranger.request("/protected", headers={"X-Forwarded-User": "user"})
    check("its own X-Forwarded-User opens nothing", status == 302, str(status))

    print("The door's person")
    browser = Browser(options.proxy)
    browser.sign_in_at_the_door("user")
    status, headers, page = browser.request("/protected")
    check("signed in by the proxy's word", status == 200 and shown_name(page) == "user", f"{status} {shown_name(page)}")
    check("the answer varies on the identity header", "X-Forwarded-User" in headers.get("Vary", ""), headers.get("Vary", ""))
    status, _, page = browser.request("/protected", headers={"X-Forwarded-User": "zed"})
    check("a forged header is replaced by the door's word", status == 200 and shown_name(page) == "user", f"{status} {shown_name(page)}")
    status, _, account = browser.request("/account")
    token = csrf(account)
    check("the account page answers, with a CSRF token", status == 200 and token is not None, str(status))

    print("A script through the door, which keeps no cookie of the app's")
    door_cookie = "; ".join(f"{c.name}={c.value}" for c in browser.jar if c.name != "micro.session")
    script = urllib.request.build_opener(NoRedirect())
    answers = []
    for _ in range(5):
        try:
            with script.open(urllib.request.Request(options.proxy + "/protected", headers={"Cookie": door_cookie, "Accept": "*/*"}), timeout=10) as answer:
                answers.append((answer.status, shown_name(answer.read().decode("utf-8", "replace"))))
        except urllib.error.HTTPError as error:
            answers.append((error.code, None))
    check("each of its requests is the door's person's", answers == [(200, "user")] * 5, str(answers))

    print("Another person on the same browser")
    browser.sign_in_at_the_door("zed", "Ops")
    status, _, page = browser.request("/protected")
    check("the page is the other person's", status == 200 and shown_name(page) == "zed", f"{status} {shown_name(page)}")
    status, _, _ = browser.request("/signout", data={"_csrf": token or ""})
    check("the previous person's CSRF token is refused", status == 403, str(status))

    print("Sign-out")
    status, _, account = browser.request("/account")
    status, headers, _ = browser.request("/signout", data={"_csrf": csrf(account) or ""})
    check("leads to the door's sign-out", status == 303 and headers.get("Location") == "/door/sign-out", f"{status} {headers.get('Location')}")

    time.sleep(0.5)
    with open(options.log, encoding="utf-8", errors="replace") as log:
        lines = [line for line in log if "event=signed_in" in line and "detail=proxy" in line]
    # user once; zed once: one event per browser session, not per request, and none for the
    # script's requests, which no cookie joins into a session.
    check("one signed_in event with detail proxy per session", len(lines) == 2, f"{len(lines)} lines")

    print(f"{'FAILED: ' + ', '.join(failures) if failures else 'all passed'}")
    return 1 if failures else 0


sys.exit(main())
