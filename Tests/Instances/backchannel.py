#!/usr/bin/env python3
"""Back-channel logout on two SampleApp instances sharing PostgreSQL (run by
Tests/Instances/run.sh, with the python of django-oidc-provider's virtual environment, the
provider's variables exported: Tests/Support/oidc-provider.sh).

    backchannel.py --phase ended ... --state FILE
    backchannel.py --phase restarted ... --state FILE

`ended`, both instances up: the store's `user` (with a password) signs in by single sign-on
on instance one (a first sign-in: linked by the password), and the cookie opens pages there
and on instance two; the same person signs in by single sign-on again on instance two (another
sign-in at the provider, another `sid`) and by password; the provider's logout token, signed
with its own key and naming the first sign-in's `sid`, is posted to instance two. A copy of
the first session's cookie then opens nothing on either instance within 2 seconds, while the
two other sessions go on on both; the same token posted again is not acted on (400
invalid_request, "used before"), a garbage token gets 400 {"error": "invalid_request"}; the
user's activity and /admin/audit show `signed_out` naming the back channel. The cookies and
the token are written to FILE.

`restarted`, after both instances were stopped and started again: the ended cookie still
opens nothing on either, the other two sessions still open pages on both, and the token
posted once more is still refused.

Prints a line per check; exits 1 when any fails.
"""

import argparse
import http.client
import json
import os
import subprocess
import sys
import time
from urllib.parse import urlencode, urlsplit

here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [here, os.path.join(here, "..", "Oidc")]
# The Browser of the other scenarios (cookies by hand: they are Secure, this is plain http),
# and the person at the provider of Tests/Oidc/flow.py.
from flow import approve  # noqa: E402
from scenarios import Browser, add_user, check, failures, json_get, say, signed_in, to_sign_in  # noqa: E402

PROVIDER = os.path.join(here, "..", "Oidc", "provider")
NAME = "Ursula Example"


def provider(*arguments):
    """The last line a script of the provider prints (run with this python, its variables
    inherited from run.sh)."""
    result = subprocess.run([sys.executable, *arguments], cwd=PROVIDER, check=True, capture_output=True, text=True, timeout=60)
    return result.stdout.strip().splitlines()[-1]


def single_sign_on(base, password):
    """The store's `user` signs in by single sign-on on `base`, proving the password when the
    identity is not linked yet; the browser, and the `sid` the provider gave the sign-in."""
    browser = Browser(base)
    answer = browser.form_post("/signin", "/auth/oidc", {})
    if answer.status not in (302, 303):
        raise AssertionError(f"POST /auth/oidc on {base} answered {answer}")
    callback = approve(answer.location, "user", "idp-user-pw", base + "/auth/oidc/callback")
    parts = urlsplit(callback)
    answer = browser.get(parts.path + "?" + parts.query)
    if answer.location.endswith("/auth/oidc/link"):
        answer = browser.form_post("/auth/oidc/link", "/auth/oidc/link", {"password": password})
    if answer.status != 303:
        raise AssertionError(f"the single sign-on on {base} ended with {answer}")
    return browser, provider("sessions.py", "user")


def post_token(base, token, source="127.0.0.1"):
    """POSTs a logout token as the provider's server does: a form, no cookie, no Origin.
    The status, Cache-Control and the JSON body (its text when it is not JSON)."""
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30, source_address=(source, 0))
    try:
        connection.request("POST", "/auth/oidc/backchannel-logout", body=urlencode({"logout_token": token}),
                           headers={"Content-Type": "application/x-www-form-urlencoded"})
        answer = connection.getresponse()
        body = answer.read()
    finally:
        connection.close()
    try:
        parsed = json.loads(body) if body else None
    except ValueError:
        parsed = body.decode(errors="replace")
    return answer.status, answer.getheader("Cache-Control"), parsed


def sessions_go_on(args, sessions, when):
    for label, cookies in sessions.items():
        for name, base in (("one", args.one), ("two", args.two)):
            check(signed_in(Browser(base, cookies=cookies).get("/protected"), NAME), f"{when}: the {label} session opens /protected on instance {name}")


def ended_on_both(args, cookies, when):
    for name, base in (("one", args.one), ("two", args.two)):
        answer = Browser(base, cookies=cookies).get("/protected")
        check(to_sign_in(answer), f"{when}: the ended session's copied cookie on instance {name}: redirected to /signin", str(answer))


def back_channel_events(events):
    return [event for event in events if event.get("event") == "signed_out" and "back channel" in event.get("detail", "")]


def phase_ended(args):
    password = "ursula-" + os.urandom(8).hex()
    if not add_user(args, "user", password, NAME):
        raise AssertionError("user could not be added")
    auditor, auditor_password = "auditor-" + os.urandom(3).hex(), "auditor-" + os.urandom(8).hex()
    result = subprocess.run([args.binary, "add-user", auditor, "--database-url", args.database_url, "--name", "Audrey Auditor", "--role", "admin"],
                            input=auditor_password + "\n", capture_output=True, text=True, timeout=60)
    check(result.returncode == 0, f"add-user {auditor} --role admin", (result.stdout + result.stderr).strip()[:200])

    say("back-channel logout: three sessions of one person")
    first, first_sid = single_sign_on(args.one, password)
    check(signed_in(first.get("/protected"), NAME), "single sign-on on instance one (linked by user's password)", f"sid {first_sid}")
    check(signed_in(first.at(args.two).get("/protected"), NAME), "its cookie opens /protected on instance two")
    second, second_sid = single_sign_on(args.two, password)
    check(signed_in(second.get("/protected"), NAME) and second_sid != first_sid,
          "a second single sign-on on instance two, another sign-in at the provider", f"sid {second_sid}")
    third = Browser(args.two)
    check(third.sign_in("user", password).status == 303 and signed_in(third.get("/protected"), NAME), "a password sign-in on instance two")

    say("back-channel logout: the provider ends the first sign-in, posting to instance two")
    copied = dict(first.cookies)
    token = provider("logout_token.py", "user", "--sid", first_sid)
    started = time.monotonic()
    status, cache, body = post_token(args.two, token)
    check(status == 200 and cache == "no-store", "the logout token naming the first sid, on instance two: 200, no-store",
          f"{status} {cache} {body} in {time.monotonic() - started:.2f} s")
    # Both instances polled until the copied cookie is refused on each, 2 s at most.
    waited = {}
    while len(waited) < 2 and time.monotonic() - started < 2:
        for name, base in (("one", args.one), ("two", args.two)):
            if name not in waited and to_sign_in(Browser(base, cookies=copied).get("/protected")):
                waited[name] = time.monotonic() - started
        time.sleep(0.05)
    for name in ("one", "two"):
        check(name in waited, f"the copied cookie opens nothing on instance {name} within 2 s of the POST",
              f"after {waited[name]:.2f} s" if name in waited else "still open after 2 s")
    ended_on_both(args, copied, "then")
    sessions = {"second single sign-on": dict(second.cookies), "password": dict(third.cookies)}
    sessions_go_on(args, sessions, "the other sessions")

    status, cache, body = post_token(args.two, token)
    check(status == 400 and isinstance(body, dict) and body.get("error") == "invalid_request" and "used before" in body.get("error_description", ""),
          "the same logout token again: 400 invalid_request, used before (not acted on twice)", f"{status} {body}")
    status, cache, body = post_token(args.one, token)
    check(status == 400 and isinstance(body, dict) and body.get("error") == "invalid_request",
          "and on instance one: 400 invalid_request (the jti is shared)", f"{status} {body}")
    # From an address of its own: a bad token counts against the sender as a failed sign-in.
    status, cache, body = post_token(args.two, "garbage." + os.urandom(12).hex() + ".token", source="127.0.0.4")
    check(status == 400 and body == {"error": "invalid_request"} and cache == "no-store",
          'a garbage logout token: 400 {"error": "invalid_request"}, no-store', f"{status} {cache} {body}")
    sessions_go_on(args, {"password": sessions["password"]}, "after the refused tokens")

    status, events = json_get(Browser(args.one, cookies=sessions["password"]), "/account/activity")
    ended = back_channel_events(events if status == 200 else [])
    check(len(ended) == 1 and first_sid in ended[0]["detail"], "user's activity (on instance one): one signed_out naming the back channel and the sid",
          ended[0]["detail"] if ended else f"{status}: " + ", ".join(f"{e.get('event')} {e.get('detail')}" for e in events[:6]))
    admin = Browser(args.one)
    check(admin.sign_in(auditor, auditor_password).status == 303, f"{auditor} (admin) signs in on instance one")
    status, events = json_get(admin, "/admin/audit?user=user")
    ended = back_channel_events(events if status == 200 else [])
    check(status == 200 and len(ended) == 1 and ended[0].get("user") == "user",
          "/admin/audit: user's signed_out naming the back channel", ended[0]["detail"] if ended else f"{status}")

    with open(args.state, "w") as state:
        json.dump({"copied": copied, "sessions": sessions, "token": token}, state)


def phase_restarted(args):
    with open(args.state) as state:
        saved = json.load(state)
    say("back-channel logout, both instances restarted")
    ended_on_both(args, saved["copied"], "after the restart")
    sessions_go_on(args, saved["sessions"], "after the restart")
    status, cache, body = post_token(args.two, saved["token"])
    check(status == 400 and isinstance(body, dict) and body.get("error") == "invalid_request",
          "the logout token once more: 400 invalid_request", f"{status} {body}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--phase", choices=("ended", "restarted"), required=True)
    parser.add_argument("--one", required=True, help="instance one's base URL")
    parser.add_argument("--two", required=True, help="instance two's base URL")
    parser.add_argument("--binary", required=True, help="SampleApp, for add-user")
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--state", required=True, help="where `ended` leaves the cookies and the token for `restarted`")
    args = parser.parse_args()
    started = time.monotonic()
    try:
        (phase_ended if args.phase == "ended" else phase_restarted)(args)
    except Exception as error:  # noqa: BLE001 - any failure is the scenario's
        check(False, f"back-channel logout, {args.phase}: {type(error).__name__}", str(error))
    say(f"back-channel logout, {args.phase}: {time.monotonic() - started:.1f} s, "
        + (f"{len(failures)} checks failed" if failures else "all checks passed"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
