#!/usr/bin/env python3
"""Single sign-on against a real OpenID Provider (django-oidc-provider), through SampleApp, as
a browser's requests would go: run by Tests/Oidc/run.sh, which starts both.

    flow.py --issuer URL --existing URL --twin URL --any URL
    flow.py --issuer URL --database-app URL --database FILE --phase linked|restarted
    flow.py --issuer URL --groups-app URL --groups-database FILE --provider-dir DIR --phase groups

--existing and --twin are two instances (one secret, MICRO_OIDC_USERS=existing, the public URL
of the first); --any has MICRO_OIDC_USERS=any, allowed domain example.com and
MICRO_PASSWORD_SIGNIN=off. --database-app has its users (and so the identity links) in the
SQLite file --database: `linked` checks the link `user`'s sign-in made is in the table;
`restarted`, after the app restarted and the provider renamed `user` to `user-renamed`, that
the link still makes that person `user`. --groups-app has MICRO_OIDC_REQUIRED_GROUPS=admin,staff
and MICRO_OIDC_ROLE_SYNC=on over its users in --groups-database; `groups` moves people between
the provider's groups (groups.py in --provider-dir) and checks each next sign-in. Exit status 0
when every check passed.
"""

import argparse
import os
import re
import sqlite3
import subprocess
import sys
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit, urlencode

import requests

failures = []
# The users who gave their consent on the provider's consent page (approve).
consents = []


def check(ok, what, detail=""):
    print(f"  {'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail else ""), flush=True)
    if not ok:
        failures.append(what)
    return ok


def csrf(session, base, path="/signin"):
    page = session.get(base + path, allow_redirects=False)
    match = re.search(r'name="_csrf" value="([^"]+)"', page.text)
    if not match:
        raise AssertionError(f"no CSRF token on {base}{path}: {page.status_code}")
    return page, match.group(1)


def prove_page(session, base):
    """The page asking for the store user's password, and its CSRF token."""
    return csrf(session, base, "/auth/oidc/link")


def start(app, base):
    """POST /auth/oidc from /signin; the provider's authorize URL."""
    _, token = csrf(app, base)
    answer = app.post(base + "/auth/oidc", data={"_csrf": token}, allow_redirects=False)
    if answer.status_code not in (302, 303):
        raise AssertionError(f"POST /auth/oidc answered {answer.status_code}: {answer.text[:200]}")
    return answer.headers["Location"]


class ConsentForm(HTMLParser):
    """The provider's consent page: its form's action and hidden fields."""

    def __init__(self):
        super().__init__()
        self.action, self.hidden = None, {}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "form":
            self.action = attributes.get("action")
        elif tag == "input" and attributes.get("type") == "hidden" and attributes.get("name"):
            self.hidden[attributes["name"]] = attributes.get("value") or ""


def approve(authorize, username, password, callback_prefix, session=None):
    """The person at the provider: signs in there, and gives consent when asked; the URL the
    provider sends back to. The provider's cookies go to `session` (a browser of the caller's)
    when given, else to a session of their own."""
    idp = session or requests.Session()
    location = authorize
    for _ in range(10):
        answer = idp.get(location, allow_redirects=False)
        if answer.status_code in (301, 302, 303):
            location = requests.compat.urljoin(location, answer.headers["Location"])
            if location.startswith(callback_prefix):
                return location
            continue
        sign_in = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', answer.text)
        consent = answer.status_code == 200 and 'name="allow"' in answer.text
        if consent:
            # The consent page of a client that asks for it: its hidden fields, and Authorize.
            page = ConsentForm()
            page.feed(answer.text)
            form = dict(page.hidden, allow="Authorize")
            target = requests.compat.urljoin(location, page.action or location)
        elif answer.status_code == 200 and sign_in:
            form = {"csrfmiddlewaretoken": sign_in.group(1), "username": username, "password": password,
                    "next": parse_qs(urlsplit(location).query).get("next", [""])[0]}
            target = location
        else:
            raise AssertionError(f"the provider answered {answer.status_code} at {location}: {answer.text[:200]}")
        answer = idp.post(target, data=form, headers={"Referer": location}, allow_redirects=False)
        if answer.status_code not in (302, 303):
            raise AssertionError(f"the provider's {'consent page' if consent else 'sign-in'} answered {answer.status_code}")
        if consent:
            consents.append(username)
        location = requests.compat.urljoin(target, answer.headers["Location"])
        if location.startswith(callback_prefix):
            return location
    raise AssertionError("the provider never sent the browser back")


def existing(args):
    print("existing users, two instances", flush=True)
    base, twin = args.existing, args.twin
    app = requests.Session()
    first = app.get(base + "/protected", allow_redirects=False)
    check(first.status_code == 302 and first.headers.get("Location") == "/signin", "a protected page sends to /signin", str(first.status_code))
    page, _ = csrf(app, base)
    check("Sign in with Test IdP" in page.text and 'action="/auth/oidc"' in page.text, "/signin shows the provider's button, a form")
    check(app.get(base + "/auth/oidc", allow_redirects=False).status_code not in (302, 303), "GET /auth/oidc starts no flow")
    authorize = start(app, base)
    query = parse_qs(urlsplit(authorize).query)
    check(authorize.startswith(args.issuer + "/authorize"), "POST /auth/oidc sends to the authorization endpoint", authorize.split("?")[0])
    check(query.get("response_type") == ["code"] and query.get("client_id") == ["micro-sample"]
          and query.get("redirect_uri") == [base + "/auth/oidc/callback"], "with code, the client id and the redirect URI")
    check({"openid", "email", "profile"} <= set(query.get("scope", [""])[0].split()), "scope holds openid email profile")
    check(query.get("code_challenge_method") == ["S256"] and len(query.get("code_challenge", [""])[0]) == 43
          and query.get("state") and query.get("nonce"), "PKCE S256, a state and a nonce")
    callback = approve(authorize, "user", "idp-user-pw", base + "/auth/oidc/callback")
    # Completed on the other instance: the flow's state travels in the encrypted cookie.
    on_twin = twin + callback[len(base):]
    waiting = app.get(on_twin, allow_redirects=False)
    # `user` has a password: the claim alone does not take the account.
    check(waiting.status_code == 303 and waiting.headers.get("Location") == "/auth/oidc/link",
          "the callback, on the other instance, signs nobody in and asks for user's password", f"{waiting.status_code} {waiting.headers.get('Location')}")
    check(app.get(base + "/protected", allow_redirects=False).status_code == 302, "nobody signed in while the identity waits")
    page, token = prove_page(app, base)
    check("Password of user" in page.text, "the page asks for user's password")
    wrong = app.post(base + "/auth/oidc/link", data={"_csrf": token, "password": "not it"}, allow_redirects=False)
    check(wrong.status_code == 422, "a wrong password: 422, nothing linked", str(wrong.status_code))
    done = app.post(base + "/auth/oidc/link", data={"_csrf": token, "password": "secret123"}, allow_redirects=False)
    check(done.status_code == 303 and done.headers.get("Location") == "/protected",
          "the right password links, signs in and returns to the remembered page", f"{done.status_code} {done.headers.get('Location')}")
    page = app.get(base + "/protected", allow_redirects=False)
    check(page.status_code == 200 and "Welcome back" in page.text, "signed in on the first instance too, welcomed")
    # A users file keeps the activity in each instance's memory: the one that signed in has it.
    events = app.get(base + "/account/activity", headers={"Accept": "application/json"}).json()
    check(any(e["event"] == "signed_in" and e["detail"] == "sso" for e in events), "activity: signed_in, detail sso")
    check(any(e["event"] == "identity_linked" and "claim=preferred_username proven by password" in e["detail"] for e in events),
          "activity: identity_linked, proven by password")
    check(app.get(on_twin, allow_redirects=False).status_code == 400, "the same callback again: 400 (state used)")
    back_channel(app, base)
    # A used code with a fresh state: the provider refuses it (invalid_grant).
    other = requests.Session()
    fresh = parse_qs(urlsplit(start(other, base)).query)["state"][0]
    code = parse_qs(urlsplit(callback).query)["code"][0]
    reused = other.get(base + "/auth/oidc/callback?" + urlencode({"code": code, "state": fresh}), allow_redirects=False)
    check(reused.status_code in (401, 403) and "Single sign-on failed" in reused.text, "a used code: refused by the provider, 401", str(reused.status_code))
    check(other.get(base + "/protected", allow_redirects=False).status_code == 302, "and nobody signed in")
    forged = requests.Session()
    start(forged, base)
    check(forged.get(base + "/auth/oidc/callback?code=x&state=forged", allow_redirects=False).status_code == 400, "a state of nobody's: 400")
    stranger = requests.Session()
    callback = approve(start(stranger, base), "stranger", "idp-stranger-pw", base + "/auth/oidc/callback")
    answer = stranger.get(callback, allow_redirects=False)
    check(answer.status_code == 403, "someone the provider vouches for but not in the store: 403", str(answer.status_code))


def back_channel(app, base):
    """The provider ends user's sessions: a logout token its own signer signs, posted by its
    server to the instance that began the session; the session's cookie then opens nothing."""
    cookie = app.cookies.get("micro.session")
    provider = os.path.join(os.path.dirname(os.path.abspath(__file__)), "provider")
    token = subprocess.run([sys.executable, "logout_token.py", "user"], cwd=provider, check=True, capture_output=True, text=True).stdout.strip()
    ended = requests.post(base + "/auth/oidc/backchannel-logout", data={"logout_token": token}, allow_redirects=False)
    check(ended.status_code == 200 and ended.headers.get("Cache-Control") == "no-store",
          "the provider's back-channel logout token: 200, no-store", f"{ended.status_code} {ended.text[:200]}")
    replayed = requests.get(base + "/protected", cookies={"micro.session": cookie}, allow_redirects=False)
    check(replayed.status_code == 302, "the session it names is over, even for a copy of its cookie", str(replayed.status_code))
    again = requests.post(base + "/auth/oidc/backchannel-logout", data={"logout_token": token}, allow_redirects=False)
    check(again.status_code == 400 and again.json().get("error") == "invalid_request", "the same token again: 400 invalid_request", str(again.status_code))
    # Signed in again for the scenarios that follow.
    callback = approve(start(app, base), "user", "idp-user-pw", base + "/auth/oidc/callback")
    check(app.get(callback, allow_redirects=False).status_code == 303, "signed in again by single sign-on")


def anyone(args):
    print("anyone within example.com, passwords off", flush=True)
    base = args.any
    app = requests.Session()
    page, token = csrf(app, base)
    check('name="password"' not in page.text and "Sign in with Test IdP" in page.text, "/signin shows only the provider's button")
    refused = app.post(base + "/signin", data={"_csrf": token, "username": "user", "password": "secret123"}, allow_redirects=False)
    check(refused.status_code in (403, 404), "POST /signin: refused", str(refused.status_code))
    basic = requests.get(base + "/admin/users", auth=("user", "secret123"), headers={"Accept": "application/json"})
    check(basic.status_code == 401, "HTTP Basic: refused", str(basic.status_code))
    outsider = requests.Session()
    answer = outsider.get(approve(start(outsider, base), "stranger", "idp-stranger-pw", base + "/auth/oidc/callback"), allow_redirects=False)
    check(answer.status_code == 403, "an email outside example.com: 403", str(answer.status_code))
    inside = requests.Session()
    answer = inside.get(approve(start(inside, base), "user", "idp-user-pw", base + "/auth/oidc/callback"), allow_redirects=False)
    # The store's `user` has a password (passwords off or not): proven before the link.
    check(answer.status_code == 303 and answer.headers.get("Location") == "/auth/oidc/link", "an example.com user who is a store user: asked for the password", str(answer.status_code))
    _, token = prove_page(inside, base)
    answer = inside.post(base + "/auth/oidc/link", data={"_csrf": token, "password": "secret123"}, allow_redirects=False)
    check(answer.status_code == 303, "an example.com user signs in", str(answer.status_code))
    check("Welcome back" in inside.get(base + "/", allow_redirects=False).text, "welcomed")
    # Roles of users outside the store: the provider's `groups` claim.
    for username, group, expected in (("ada", "admin", 200), ("bo", "no", 403)):
        person = requests.Session()
        answer = person.get(approve(start(person, base), username, f"idp-{username}-pw", base + "/auth/oidc/callback"), allow_redirects=False)
        check(answer.status_code == 303, f"{username} ({group} group) signs in", str(answer.status_code))
        admin = person.get(base + "/admin/users", allow_redirects=False)
        check(admin.status_code == expected, f"{username} ({group} group): the admin page answers {expected}", str(admin.status_code))


def links(path):
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as database:
        return database.execute("SELECT issuer, subject, username FROM micro_identity_links").fetchall()


def linked(args):
    print("identity links in the users' database", flush=True)
    base = args.database_app
    person = requests.Session()
    answer = person.get(approve(start(person, base), "user", "idp-user-pw", base + "/auth/oidc/callback"), allow_redirects=False)
    check(answer.status_code == 303, "user signs in", str(answer.status_code))
    rows = links(args.database)
    check(len(rows) == 1 and rows[0][0] == args.issuer and rows[0][2] == "user", "one link, (issuer, subject) to user, in the table", str(rows))


def restarted(args):
    print("the link after a restart, the provider's user renamed", flush=True)
    base = args.database_app
    person = requests.Session()
    answer = person.get(approve(start(person, base), "user-renamed", "idp-user-pw", base + "/auth/oidc/callback"), allow_redirects=False)
    check(answer.status_code == 303, "the renamed user signs in: the link was kept", str(answer.status_code))
    # users.db holds `user` alone, and `user-renamed` names nobody: only the link signs in.
    page = person.get(base + "/protected", allow_redirects=False)
    check(page.status_code == 200, "signed in, as the store's user the link names", str(page.status_code))
    check(len(links(args.database)) == 1, "still one link")


def groups(args):
    print("groups at every single sign-on: required groups, and roles synced from the claim", flush=True)
    base = args.groups_app

    def sign_in(username):
        person = requests.Session()
        answer = person.get(approve(start(person, base), username, f"idp-{username}-pw", base + "/auth/oidc/callback"), allow_redirects=False)
        return person, answer

    def at_provider(username, *names):
        subprocess.run([sys.executable, "groups.py", username, *names], cwd=args.provider_dir, check=True)

    def roles(username):
        with sqlite3.connect(f"file:{args.groups_database}?mode=ro", uri=True) as database:
            row = database.execute("SELECT roles FROM users WHERE username = ?", (username,)).fetchone()
        return row[0] if row else None

    # bo is a store user, but in none of the required groups (admin, staff).
    bo, answer = sign_in("bo")
    check(answer.status_code == 403 and "group" in answer.text, "bo, in no required group: 403 naming the groups", str(answer.status_code))
    check(bo.get(base + "/protected", allow_redirects=False).status_code == 302, "and no session")
    check(roles("bo") in ("", None), "and no roles", str(roles("bo")))
    # ada is in `admin` at the provider: the store's row gets the role at sign-in.
    ada, answer = sign_in("ada")
    check(answer.status_code == 303, "ada (admin group) signs in", str(answer.status_code))
    check(ada.get(base + "/admin/users", allow_redirects=False).status_code == 200, "ada's roles synced: the admin page answers")
    check((roles("ada") or "").split() == ["admin"], "ada's row holds admin", str(roles("ada")))
    # bo moves into `staff`: he signs in, without the admin page.
    at_provider("bo", "staff")
    first, answer = sign_in("bo")
    check(answer.status_code == 303, "bo, moved into staff, signs in", str(answer.status_code))
    check(first.get(base + "/admin/users", allow_redirects=False).status_code == 403, "bo's roles are staff's: no admin page")
    check(first.get(base + "/protected", allow_redirects=False).status_code == 200, "bo's session goes on")
    # bo moves into `admin`: his next sign-in brings the role, and ends his other session.
    at_provider("bo", "admin")
    second, answer = sign_in("bo")
    check(answer.status_code == 303, "bo, moved into admin, signs in again", str(answer.status_code))
    check(second.get(base + "/admin/users", allow_redirects=False).status_code == 200, "bo's new session has the admin page")
    check(first.get(base + "/protected", allow_redirects=False).status_code == 302, "the roles changed: bo's earlier session ended")
    check((roles("bo") or "").split() == ["admin"], "bo's row holds admin, not staff any more", str(roles("bo")))
    # A person taken out of every required group is refused at the next sign-in.
    at_provider("bo")
    _, answer = sign_in("bo")
    check(answer.status_code == 403, "bo, out of every required group: refused at the next sign-in", str(answer.status_code))
    check((roles("bo") or "").split() == ["admin"], "refused, the row's roles are not wiped", str(roles("bo")))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--issuer", required=True)
    for name in ("--existing", "--twin", "--any", "--database-app", "--database", "--groups-app", "--groups-database", "--provider-dir"):
        parser.add_argument(name)
    parser.add_argument("--phase", choices=("linked", "restarted", "groups"))
    args = parser.parse_args()
    phases = {"linked": (linked,), "restarted": (restarted,), "groups": (groups,)}
    return run((existing, anyone) if args.existing else phases[args.phase], args)


def run(scenarios, args):
    """Each scenario with `args`, an exception failing that scenario alone; the exit status."""
    for scenario in scenarios:
        try:
            scenario(args)
        except Exception as error:  # noqa: BLE001 - any failure is the scenario's
            check(False, f"{scenario.__name__}: {type(error).__name__}", str(error))
    print(f"{'all checks passed' if not failures else f'{len(failures)} checks failed'}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
