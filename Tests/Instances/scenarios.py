#!/usr/bin/env python3
"""Two SampleApp instances sharing one PostgreSQL, behind nginx (run by Tests/Instances/run.sh).

The instances run in production mode with the same MICRO_SESSION_SECRET and
MICRO_DATABASE_URL, and trust 127.0.0.1 (nginx) as their proxy. Each scenario is checked
through the instances' own ports or through nginx, as a browser would (the CSRF token taken
from the form, Origin and Sec-Fetch-Site on each POST, the session cookie kept by hand: it is
Secure, and this is plain http):

  users       add-user NAME --database-url URL (the password on stdin) while both run.
  session     signed in on instance one, the session opens on instance two and through nginx.
  sign-out    signed out on instance two: the old cookie, replayed on instance one, no longer
              opens (a redirect to /signin) within 5 seconds.
  rehash      a user added at bcrypt cost 10 signs in (re-hashed at the app's cost): the
              session opens on both instances at once and a second later.
  throttle    five failed sign-ins of one name split across both instances: the sixth, with the
              right password, is 429 on both.
  forwarded   twenty refused sign-ins from 127.0.0.5 through nginx (which took them to both
              instances): 127.0.0.5 is refused with the right password (429), while 127.0.0.6
              signs in; so each instance counts the client's address from X-Forwarded-For, not
              nginx's, in the shared table.
  setup-link  add-user NAME --invite: the link, opened on both instances, posted from both at
              once: one 303 sets the password, the other is 410; only the winner's password
              signs in.
  scim        scim-token --database-url; a person signed in on instance one is deactivated by
              SCIM (PATCH active false) on instance two: the session and its copied cookie are
              dead on both within 2 s and the password refused; reactivated on instance one,
              the password signs in again and the old cookie stays dead.
  failover    instance one killed (SIGKILL): nginx goes on serving signed-in pages, sign-out
              and sign-in through instance two.

Only the standard library. Prints a line per check and a summary; exits 1 when any fails.
"""

import argparse
import base64
import http.client
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from urllib.parse import urlencode, urlsplit

failures = []
passed = 0


def say(text=""):
    print(f"[instances] {text}", flush=True)


def check(ok, what, detail=""):
    global passed
    say(f"  {'ok  ' if ok else 'FAIL'} {what}{': ' + detail if detail else ''}")
    if ok:
        passed += 1
    else:
        failures.append(what)
    return ok


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name):
        return self.headers.get(name.lower())

    @property
    def location(self):
        return self.header("Location") or ""

    def __str__(self):
        return f"{self.status} {self.location}".strip()


class Browser:
    """A client of one base URL (an instance or nginx), from one local address, with its
    cookies."""

    def __init__(self, base, source="127.0.0.1", cookies=None):
        parts = urlsplit(base)
        self.base, self.host, self.port, self.source = base, parts.hostname, parts.port, source
        self.cookies = dict(cookies or {})

    def at(self, base, source=None):
        """The same cookies, sent to another base URL."""
        return Browser(base, source or self.source, self.cookies)

    def request(self, method, path, fields=None, extra=None):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30, source_address=(self.source, 0))
        headers = dict(extra or {})
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        body = None
        if fields is not None:
            body = urlencode(fields)
            headers.update({"Content-Type": "application/x-www-form-urlencoded",
                            "Origin": self.base, "Sec-Fetch-Site": "same-origin"})
        try:
            if "Host" in headers:
                connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
                for name, value in headers.items():
                    connection.putheader(name, value)
                connection.endheaders(body.encode() if body else None)
            else:
                connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            answer = Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    cookie_name, _, rest = value.partition("=")
                    self.cookies[cookie_name.strip()] = rest.split(";", 1)[0]
            return answer
        finally:
            connection.close()

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, fields):
        return self.request("POST", path, fields)

    def form_post(self, page, path, fields):
        """POST to `path` with the CSRF token of the form on `page`."""
        html = self.get(page)
        match = re.search(rb'name="_csrf" value="([^"]+)"', html.body)
        if not match:
            raise AssertionError(f"no CSRF token on {self.base}{page} ({html.status})")
        return self.post(path, dict(fields, _csrf=match.group(1).decode()))

    def sign_in(self, username, password):
        return self.form_post("/signin", "/signin", {"username": username, "password": password})

    def sign_out(self):
        return self.form_post("/signout", "/signout", {})


def signed_in(answer, name):
    return answer.status == 200 and name.encode() in answer.body


def to_sign_in(answer):
    return answer.status in (302, 303) and answer.location.endswith("/signin")


def add_user(args, username, password, name):
    started = time.monotonic()
    result = subprocess.run(
        [args.binary, "add-user", username, "--database-url", args.database_url, "--name", name],
        input=password + "\n", capture_output=True, text=True, timeout=60)
    return check(result.returncode == 0 and ("Saved new user" in result.stdout or "Replaced user" in result.stdout),
                 f"add-user {username} --database-url (password on stdin)",
                 f"status {result.returncode} in {time.monotonic() - started:.1f} s, {(result.stdout + result.stderr).strip()[:200]}")


def scenario_rehash(args):
    """A user whose hash has another cost than the app's: the sign-in re-hashes it, and the
    session it signs in opens at once on both instances, and still once both have the new hash."""
    username, password = f"carol-{secrets.token_hex(3)}", "carol-" + secrets.token_hex(8)
    result = subprocess.run(
        [args.binary, "add-user", username, "--database-url", args.database_url, "--name", "Carol Example", "--cost", "10"],
        input=password + "\n", capture_output=True, text=True, timeout=60)
    if not check(result.returncode == 0, f"add-user {username} --cost 10", (result.stdout + result.stderr).strip()[:200]):
        return
    browser = Browser(args.one)
    answer = browser.sign_in(username, password)
    check(answer.status == 303 and answer.location == "/", "sign-in that re-hashes, on instance one", str(answer))
    check(signed_in(browser.at(args.two).get("/protected"), "Carol Example"), "its session opens on instance two at once")
    check(signed_in(browser.at(args.one).get("/protected"), "Carol Example"), "and on instance one")
    time.sleep(1)
    check(signed_in(browser.at(args.two).get("/protected"), "Carol Example"), "and on instance two a second later")
    check(signed_in(browser.at(args.proxy).get("/protected"), "Carol Example"), "and through nginx")


def scenario_setup_link(args):
    """add-user --invite makes a set-up link in the shared database; opened in one browser on each
    instance, its form posted from both at the same moment: one sets the password (303), the
    other is the used link's 410, and the person signs in with the password that won, and only it."""
    username, name = f"dana-{secrets.token_hex(3)}", "Dana Example"
    result = subprocess.run(
        [args.binary, "add-user", username, "--invite", "--name", name, "--database-url", args.database_url],
        capture_output=True, text=True, timeout=60, env=dict(os.environ, MICRO_PUBLIC_URL=args.proxy))
    lines = result.stdout.strip().splitlines()
    if not check(result.returncode == 0 and lines and "/password/setup?key=" in lines[-1], f"add-user {username} --invite",
                 (result.stdout + result.stderr).strip()[:200]):
        return
    link = urlsplit(lines[-1])
    browsers = [Browser(args.one), Browser(args.two)]
    tokens = []
    for index, browser in enumerate(browsers):
        opened = browser.get(link.path + "?" + link.query)
        check(opened.status == 303 and opened.location.endswith("/password/setup"), f"the link opens on instance {index + 1}", str(opened))
        form = browser.get("/password/setup")
        match = re.search(rb'name="_csrf" value="([^"]+)"', form.body)
        if not check(form.status == 200 and match is not None, f"its form on instance {index + 1}", str(form)):
            return
        tokens.append(match.group(1).decode())
    passwords = [f"dana one {secrets.token_hex(6)}", f"dana two {secrets.token_hex(6)}"]
    answers = [None, None]
    barrier = threading.Barrier(2)

    def post(index):
        barrier.wait()
        answers[index] = browsers[index].post("/password/setup", {
            "new_password": passwords[index], "new_password_confirmation": passwords[index], "_csrf": tokens[index]})

    threads = [threading.Thread(target=post, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    statuses = sorted(answer.status if answer else 0 for answer in answers)
    if not check(statuses == [303, 410], "posted on both instances at once: one 303, one 410", str(statuses)):
        return
    won = 0 if answers[0].status == 303 else 1
    check(signed_in(browsers[won].get("/protected"), name), "the winning browser is signed in")
    lost = Browser(args.proxy).sign_in(username, passwords[1 - won])
    check(to_sign_in(lost), "the losing password signs nobody in", str(lost))
    fresh = Browser(args.proxy)
    check(fresh.sign_in(username, passwords[won]).status == 303 and signed_in(fresh.get("/protected"), name),
          "the winning password signs in through nginx")
    # Used: on either instance, the link is the same 410.
    check(Browser(args.two).get(link.path + "?" + link.query).status == 410, "the used link is 410 on instance two")


def scenario_scim(args):
    """The company's provider deactivates a person through SCIM on instance two: their session,
    signed in on instance one, and its cookie copied to instance two, are dead on both within
    2 seconds, and their password is refused; reactivated through instance one, they sign in
    again while the old cookie stays dead."""
    result = subprocess.run([args.binary, "scim-token", "--database-url", args.database_url],
                            capture_output=True, text=True, timeout=60)
    lines = result.stdout.strip().splitlines()
    made = result.returncode == 0 and bool(lines)
    # Its output ends with the token: only a failure's (which holds none) reaches the log.
    if not check(made, "scim-token --database-url", "" if made else (result.stdout + result.stderr).strip()[:200]):
        return
    bearer = {"Authorization": "Bearer " + lines[-1], "Accept": "application/scim+json"}

    def scim(base, method, path, document=None):
        headers = dict(bearer)
        body = None
        if document is not None:
            body = json.dumps(document).encode()
            headers["Content-Type"] = "application/scim+json"
        parts = urlsplit(base)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            connection.request(method, "/scim/v2" + path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            return response.status, json.loads(data) if data else None
        finally:
            connection.close()

    def active(value):
        return {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                "Operations": [{"op": "replace", "path": "active", "value": value}]}

    username, password, name = f"erin-{secrets.token_hex(3)}", "erin-" + secrets.token_hex(8), "Erin Example"
    if not add_user(args, username, password, name):
        return
    status, found = scim(args.two, "GET", "/Users?" + urlencode({"filter": f'userName eq "{username}"'}))
    resources = (found or {}).get("Resources") or []
    if not check(status == 200 and len(resources) == 1, "SCIM finds the user by userName on instance two", f"{status} {found}"):
        return
    user_id = resources[0]["id"]
    browser = Browser(args.one)
    check(browser.sign_in(username, password).status == 303, "the person signs in on instance one")
    cookies = dict(browser.cookies)
    check(signed_in(Browser(args.two, cookies=cookies).get("/protected"), name), "the copied cookie opens instance two")
    status, user = scim(args.two, "PATCH", f"/Users/{user_id}", active(False))
    check(status == 204 or (status == 200 and user and user.get("active") is False), "PATCH active false on instance two", f"{status} {user}")
    eventually("the session is dead on instance one within 2 s",
               lambda: to_sign_in(Browser(args.one, cookies=cookies).get("/protected")), seconds=2)
    eventually("its copied cookie is dead on instance two within 2 s",
               lambda: to_sign_in(Browser(args.two, cookies=cookies).get("/protected")), seconds=2)
    refused = Browser(args.proxy)
    answer = refused.sign_in(username, password)
    check(answer.location != "/" and to_sign_in(refused.get("/protected")), "the password is refused through nginx", str(answer))
    status, user = scim(args.one, "PATCH", f"/Users/{user_id}", active(True))
    check(status == 204 or (status == 200 and user and user.get("active") is True), "PATCH active true on instance one", f"{status} {user}")
    again = Browser(args.proxy)
    check(again.sign_in(username, password).status == 303 and signed_in(again.get("/protected"), name), "the person signs in again")
    check(to_sign_in(Browser(args.one, cookies=cookies).get("/protected"))
          and to_sign_in(Browser(args.two, cookies=cookies).get("/protected")), "while the old cookie stays dead on both")


def scenario_users(args, people):
    for username, (password, name) in people.items():
        if not add_user(args, username, password, name):
            raise AssertionError("a user could not be added")


def scenario_session(args, alice):
    username, password, name = alice
    one = Browser(args.one)
    answer = one.sign_in(username, password)
    check(answer.status == 303 and answer.location == "/", "sign-in on instance one", str(answer))
    check(signed_in(one.get("/protected"), name), "signed in on instance one")
    check(signed_in(one.at(args.two).get("/protected"), name), "the same cookie opens the session on instance two")
    check(signed_in(one.at(args.proxy).get("/protected"), name), "and through nginx")
    return one


def scenario_sign_out(args, alice, one):
    username, password, name = alice
    old = dict(one.cookies)
    two = one.at(args.two)
    answer = two.sign_out()
    check(answer.status == 303 and answer.location == "/", "sign-out on instance two", str(answer))
    check(to_sign_in(Browser(args.two, cookies=old).get("/protected")), "the old cookie on instance two: redirected to /signin")
    started = time.monotonic()
    while True:
        answer = Browser(args.one, cookies=old).get("/protected")
        waited = time.monotonic() - started
        if to_sign_in(answer) or waited > 5:
            break
        time.sleep(0.05)
    check(to_sign_in(answer), "the old cookie replayed on instance one: redirected to /signin within 5 s",
          f"{answer} after {waited:.2f} s")


def scenario_throttle(args, bob):
    username, password, name = bob
    results = []
    for attempt in range(5):
        base = args.one if attempt % 2 == 0 else args.two
        answer = Browser(base).sign_in(username, "wrong-" + secrets.token_hex(4))
        results.append(f"{'one' if base == args.one else 'two'} {answer}")
        if not to_sign_in(answer):
            check(False, "a failed sign-in is refused (303 to /signin)", ", ".join(results))
            return
    check(True, "five failed sign-ins, three on instance one and two on instance two", ", ".join(results))
    for label, base in (("one", args.one), ("two", args.two)):
        answer = Browser(base).sign_in(username, password)
        check(answer.status == 429 and answer.header("Retry-After"),
              f"the sixth, with the right password, on instance {label}: 429", f"{answer.status}, Retry-After {answer.header('Retry-After')}")


def scenario_forwarded(args, alice):
    username, password, name = alice
    upstreams = set()
    statuses = []
    for attempt in range(20):
        client = Browser(args.proxy, source="127.0.0.5")
        if attempt % 2:
            # nginx takes requests to the instances in turn, and a sign-in is two (the form, the
            # POST): one more request sends every other POST to the other instance.
            client.get("/css/app.css")
        # A name over 256 bytes is refused before any check, and counts against the address.
        answer = client.sign_in("x" * 300, "anything")
        statuses.append(answer.status)
        upstreams.add(answer.header("X-Upstream") or "?")
        if not to_sign_in(answer):
            check(False, "a refused sign-in through nginx is a 303 to /signin", str(answer))
            return
    expected = {urlsplit(args.one).netloc, urlsplit(args.two).netloc}
    check(upstreams == expected, "twenty refused sign-ins from 127.0.0.5 through nginx, posted to both instances",
          ", ".join(sorted(upstreams)))
    answer = Browser(args.proxy, source="127.0.0.5").sign_in(username, password)
    check(answer.status == 429, "127.0.0.5 is then refused with the right password (counted by X-Forwarded-For, shared)",
          f"{answer.status}, Retry-After {answer.header('Retry-After')}")
    other = Browser(args.proxy, source="127.0.0.6")
    answer = other.sign_in(username, password)
    check(answer.status == 303 and answer.location == "/", "127.0.0.6 signs in through nginx (not nginx's address counted)",
          str(answer))
    check(signed_in(other.get("/protected"), name), "signed in through nginx")
    ids = {(answer.header("X-Request-Id"), answer.header("X-Nginx-Request-Id")) for answer in
           (other.get("/protected"), other.get("/css/app.css"), other.get("/no-such-page"))}
    check(len(ids) == 3 and all(mine == nginx and nginx for mine, nginx in ids),
          "each answer through nginx carries nginx's $request_id as its X-Request-Id", str(ids))


def eventually(what, probe, seconds=5):
    """Polls `probe` until it is true or `seconds` pass; checks it; returns the wait."""
    started = time.monotonic()
    while not probe() and time.monotonic() - started < seconds:
        time.sleep(0.05)
    waited = time.monotonic() - started
    check(probe(), what, f"after {waited:.2f} s")


def json_get(browser, path):
    answer = browser.request("GET", path, extra={"Accept": "application/json"})
    return answer.status, json.loads(answer.body or b"null")


def scenario_account(args):
    """The account pages on two instances: a session ended on one is refused on the other, and
    a password changed on one ends the user's sessions on the other."""
    username, password, name = f"carol-{secrets.token_hex(3)}", "carol-" + secrets.token_hex(8), "Carol Example"
    if not add_user(args, username, password, name):
        raise AssertionError("carol could not be added")
    laptop, phone = Browser(args.one), Browser(args.two)
    check(laptop.sign_in(username, password).status == 303 and phone.sign_in(username, password).status == 303,
          "signed in on instance one (laptop) and instance two (phone)")
    status, listed = json_get(laptop, "/account/sessions")
    check(status == 200 and len(listed) == 2 and sum(entry["current"] for entry in listed) == 1,
          "instance one lists both sessions, one of them this device", f"{status} {listed}")
    other = next(entry["id"] for entry in listed if not entry["current"])
    answer = laptop.form_post("/account/sessions", f"/account/sessions/{other}/sign-out", {})
    check(answer.status == 303, "the phone's session ended from the laptop on instance one", str(answer))
    eventually("the phone's cookie on instance two: sent to /signin within 5 s", lambda: to_sign_in(phone.get("/protected")))
    check(signed_in(laptop.get("/protected"), name), "the laptop stays signed in")
    tablet = Browser(args.one)
    check(tablet.sign_in(username, password).status == 303, "signed in on instance one again (tablet)")
    new = "carol-new-" + secrets.token_hex(8)
    desk = Browser(args.two)
    check(desk.sign_in(username, password).status == 303, "signed in on instance two (desk)")
    answer = desk.form_post("/account/password", "/account/password",
                            {"current_password": password, "new_password": new, "new_password_confirmation": new})
    check(answer.status == 303 and answer.location == "/account", "the password changed on instance two", str(answer))
    check(signed_in(desk.get("/protected"), name), "the desk stays signed in, under a new cookie")
    eventually("the tablet's session on instance one ends within 5 s", lambda: to_sign_in(tablet.get("/protected")))
    check(to_sign_in(Browser(args.one).sign_in(username, password)), "the old password fails on instance one")
    check(Browser(args.one).sign_in(username, new).status == 303, "the new one works there")
    status, events = json_get(desk, "/account/activity")
    kinds = [event["event"] for event in events]
    check(status == 200 and "password_changed" in kinds and "session_ended" in kinds and new not in json.dumps(events),
          "the activity, shared, has password_changed and session_ended (and no password)", ", ".join(kinds[:8]))


def scenario_edges(args, alice):
    """What a client sends past nginx on its own: a mount point (nginx here passes a client's
    X-Forwarded-Prefix on, as it does unless told otherwise), and a host the app does not serve
    (DNS rebinding: the browser's Host names the attacker's site)."""
    username, password, name = alice
    forged = {"X-Forwarded-Prefix": "/evil"}
    client = Browser(args.proxy, source="127.0.0.9")
    page = client.request("GET", "/signin", extra=forged)
    check(page.status == 200 and b"/evil" not in page.body, "a forged X-Forwarded-Prefix through nginx: the sign-in page has no /evil",
          str(page))
    answer = client.request("GET", "/protected", extra=forged)
    check(answer.status == 302 and answer.location == "/signin", "and the redirect to sign-in stays /signin", str(answer))
    cookie = answer.header("Set-Cookie") or ""
    check("/evil" not in cookie, "and no cookie is scoped under /evil", cookie)
    for host in ("rebind.evil.example", f"rebind.evil.example:{urlsplit(args.proxy).port}"):
        foreign = Browser(args.proxy, source="127.0.0.9").request("GET", "/signin", extra={"Host": host})
        check(foreign.status == 421 and foreign.header("Set-Cookie") is None,
              f"a foreign Host through nginx ({host}) gets 421, no cookie", str(foreign))
    # HTTP Basic with right credentials, as a rebound page would send them.
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    basic = Browser(args.proxy, source="127.0.0.9").request(
        "GET", "/admin/users", extra={"Host": "rebind.evil.example", "Authorization": f"Basic {token}", "Accept": "application/json"})
    check(basic.status == 421 and name.encode() not in basic.body, "HTTP Basic under a foreign Host through nginx gets 421", str(basic))
    check(Browser(args.proxy, source="127.0.0.9").get("/signin").status == 200, "the proxy's own address is served")


def scenario_failover(args, alice):
    username, password, name = alice
    user = Browser(args.proxy, source="127.0.0.7")
    answer = user.sign_in(username, password)
    check(answer.status == 303 and answer.location == "/", "sign-in through nginx", str(answer))
    os.kill(args.kill_pid, signal.SIGKILL)
    say(f"  instance one (PID {args.kill_pid}) killed with SIGKILL (the shell reports it as Killed)")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(args.kill_pid, 0)
        except OSError:
            break
        # A killed child stays a zombie until run.sh reaps it: gone once its port refuses.
        try:
            Browser(args.one).get("/css/app.css")
        except OSError:
            break
        time.sleep(0.05)
    two = urlsplit(args.two).netloc
    served = []
    for _ in range(10):
        answer = user.get("/protected")
        served.append(signed_in(answer, name) and (answer.header("X-Upstream") or "").endswith(two))
    check(all(served), "instance one killed: ten signed-in pages through nginx, all from instance two",
          f"{served.count(True)} of {len(served)}")
    answer = user.sign_out()
    check(answer.status == 303 and answer.location == "/", "sign-out through nginx", str(answer))
    check(to_sign_in(user.get("/protected")), "signed out")
    again = Browser(args.proxy, source="127.0.0.8")
    answer = again.sign_in(username, password)
    check(answer.status == 303 and answer.location == "/", "a new sign-in through nginx", str(answer))
    check(signed_in(again.get("/protected"), name), "signed in")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--one", required=True, help="instance one's base URL")
    parser.add_argument("--two", required=True, help="instance two's base URL")
    parser.add_argument("--proxy", required=True, help="nginx's base URL")
    parser.add_argument("--binary", required=True, help="SampleApp, for add-user")
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--kill-pid", type=int, required=True, help="instance one's PID")
    args = parser.parse_args()

    suffix = secrets.token_hex(3)
    alice = (f"alice-{suffix}", "alice-" + secrets.token_hex(8), "Alice Example")
    bob = (f"bob-{suffix}", "bob-" + secrets.token_hex(8), "Bob Example")
    people = {alice[0]: alice[1:], bob[0]: bob[1:]}

    timings = []
    one = None
    scenarios = [
        ("users", lambda: scenario_users(args, people)),
        ("session", lambda: scenario_session(args, alice)),
        ("sign-out", lambda: scenario_sign_out(args, alice, one)),
        ("rehash", lambda: scenario_rehash(args)),
        ("throttle", lambda: scenario_throttle(args, bob)),
        ("forwarded", lambda: scenario_forwarded(args, alice)),
        ("edges", lambda: scenario_edges(args, alice)),
        ("account", lambda: scenario_account(args)),
        ("setup-link", lambda: scenario_setup_link(args)),
        ("scim", lambda: scenario_scim(args)),
        ("failover", lambda: scenario_failover(args, alice)),
    ]
    for name, run in scenarios:
        say(name)
        started = time.monotonic()
        try:
            result = run()
            if name == "session":
                one = result
        except Exception as error:  # noqa: BLE001 - any failure is the scenario's
            check(False, f"{name}: {type(error).__name__}", str(error))
            if name in ("users", "session"):
                timings.append((name, time.monotonic() - started))
                break
        timings.append((name, time.monotonic() - started))

    say("")
    say("scenario times: " + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in timings))
    if failures:
        say(f"FAILED: {len(failures)} of {passed + len(failures)} checks: " + "; ".join(failures))
        sys.exit(1)
    say(f"all {passed} checks passed")


if __name__ == "__main__":
    main()
