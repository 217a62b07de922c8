#!/usr/bin/env python3
"""SampleApp behind Apache httpd with mod_auth_openidc, as a browser's requests would go: run by
Tests/SignInProxy/apache.sh, which starts the provider, the apps and Apache.

    apache.py --issuer URL --client-id ID --client-secret SECRET --token-lifetime SECONDS \
              --header-door URL --jwt-door URL --jwt-app URL

--header-door is Apache's virtual host that passes the user (the ID token's preferred_username)
in X-Forwarded-User to its app (MICRO_PROXY_AUTH=header, the store's users only);
--jwt-door passes the ID token itself in OIDC_id_token to --jwt-app (MICRO_PROXY_AUTH=jwt,
anyone the provider vouches for, roles from `groups`). Both are Apache's client --client-id,
whose secret is --client-secret; the provider's ID tokens live for --token-lifetime seconds.
Exit status 0 when every check passed.
"""

import argparse
import os
import re
import sys
import time
from urllib.parse import parse_qs, urljoin, urlsplit

import jwt
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

# The single sign-on step's walk: the provider's sign-in form and consent page, the checks.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Oidc"))
from flow import approve, check, consents, run  # noqa: E402

JSON = {"Accept": "application/json"}


def browser():
    """A browser's cookie jar, asking for pages (mod_auth_openidc answers 401 instead of a
    redirect to requests it takes for scripts')."""
    session = requests.Session()
    session.headers["Accept"] = "text/html,application/xhtml+xml"
    return session


def shown_name(answer):
    """The signed-in user's name as /protected shows it."""
    found = re.search(r"Only signed-in users see this page, ([^.<]*)\.", answer.text)
    return found.group(1).strip().lower() if found else None


def sends_to_provider(args, answer):
    return answer.status_code == 302 and answer.headers.get("Location", "").startswith(args.issuer + "/authorize")


def through_door(args, door, username, password, person=None):
    """A browser (a new one unless `person`) asks the door for /protected: sent to the provider,
    signs in there (consenting when asked), comes back through Apache's redirect URI and is sent
    on to /protected. The browser and its answer there."""
    person = person or browser()
    first = person.get(door + "/protected", allow_redirects=False)
    authorize = first.headers.get("Location", "")
    query = parse_qs(urlsplit(authorize).query)
    check(sends_to_provider(args, first), f"{username}: Apache sends the browser to the provider's authorization endpoint",
          f"{first.status_code} {authorize.split('?')[0]}")
    check(query.get("client_id") == [args.client_id] and query.get("redirect_uri") == [door + "/redirect_uri"]
          and query.get("response_type") == ["code"] and query.get("code_challenge_method") == ["S256"],
          f"{username}: as {args.client_id}, the code flow to its redirect URI, with PKCE S256")
    callback = approve(authorize, username, password, door + "/redirect_uri", session=person)
    back = person.get(callback, allow_redirects=False)
    check(back.status_code == 302 and urlsplit(back.headers.get("Location", "")).path == "/protected",
          f"{username}: Apache's redirect URI takes the code and returns to /protected", f"{back.status_code} {back.headers.get('Location')}")
    return person, person.get(door + "/protected", allow_redirects=False)


def proxy_sign_ins(person, door):
    events = person.get(door + "/account/activity", headers=JSON, allow_redirects=False).json()
    return sum(1 for event in events if event["event"] == "signed_in" and event["detail"] == "proxy")


def signed_in_once(person, door, username):
    # The page again, then the activity: one signed_in event for the session, not one a request.
    person.get(door + "/protected", allow_redirects=False)
    count = proxy_sign_ins(person, door)
    check(count == 1, f"{username}'s activity: signed_in with detail proxy, once for the session", f"{count} events")


def sign_out(args, person, door, username):
    """Sign-out leads to mod_auth_openidc's logout, which ends Apache's session and sends to the
    provider's end-session endpoint, which ends the provider's and sends back to the door: whose
    front page then needs the provider's sign-in form again."""
    account = person.get(door + "/account", allow_redirects=False)
    token = re.search(r'name="_csrf" value="([^"]+)"', account.text)
    out = person.post(door + "/signout", data={"_csrf": token.group(1) if token else ""}, allow_redirects=False)
    logout = out.headers.get("Location", "")
    check(out.status_code == 303 and logout.startswith(door + "/redirect_uri?logout="),
          f"{username}: sign-out leads to mod_auth_openidc's logout", f"{out.status_code} {logout}")
    landed = person.get(urljoin(door, logout))
    hops = [answer.url.split("?")[0] for answer in landed.history]
    check(args.issuer + "/end-session" in hops and door + "/" in hops, f"{username}: through the provider's end-session, back to the door", str(hops))
    check(landed.status_code == 200 and 'name="password"' in landed.text and "/accounts/login/" in landed.url,
          f"{username}: signed out of Apache and of the provider: the door's front page asks for the provider's password",
          f"{landed.status_code} {landed.url.split('?')[0]}")


def header_mode(args):
    print("header mode: Apache's REMOTE_USER in X-Forwarded-User, the store's users", flush=True)
    door = args.header_door
    stranger = browser()
    answer = stranger.get(door + "/protected", headers={"X-Forwarded-User": "user"}, allow_redirects=False)
    check(sends_to_provider(args, answer), "a browser's own X-Forwarded-User opens nothing: Apache sends it to the provider", str(answer.status_code))

    person, page = through_door(args, door, "user", "idp-user-pw")
    check(page.status_code == 200 and shown_name(page) == "user", "user is signed in on Apache's word", f"{page.status_code} {shown_name(page)}")
    check("X-Forwarded-User" in page.headers.get("Vary", ""), "the page varies on X-Forwarded-User", page.headers.get("Vary", ""))
    check("user" in consents, "the provider asked user's consent")
    # Apache's RequestHeader set replaces the browser's header; a spelling with an underscore
    # passes through Apache untouched, and names nobody at the app.
    for header in ("X-Forwarded-User", "x-forwarded-user", "X-Forwarded_User"):
        forged = person.get(door + "/protected", headers={header: "ada"}, allow_redirects=False)
        check(forged.status_code == 200 and shown_name(forged) == "user", f"the browser's own {header}: ada changes nothing",
              f"{forged.status_code} {shown_name(forged)}")
    signed_in_once(person, door, "user")
    admin = person.get(door + "/admin/users", allow_redirects=False)
    check(admin.status_code == 200, "user's roles are the store's: the users page answers", str(admin.status_code))

    # The provider vouches for ada, whom the store does not know: MICRO_PROXY_USERS=existing.
    _, page = through_door(args, door, "ada", "idp-ada-pw")
    check(page.status_code == 403, "ada, signed in at the provider but not a store user, is refused", str(page.status_code))

    sign_out(args, person, door, "user")


def forgeries(args):
    """Tokens nobody at the provider signed, naming `user` with the right issuer and audience."""
    now = int(time.time())
    claims = {"iss": args.issuer, "aud": args.client_id, "sub": "1", "preferred_username": "user", "groups": ["admin"],
              "iat": now, "exp": now + 600}
    kid = requests.get(args.issuer + "/jwks").json()["keys"][0]["kid"]
    own_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return {
        "garbage": "not.a-token",
        "alg none": jwt.encode(claims, None, algorithm="none"),
        # A secret Apache and the provider share, that the app has no business trusting.
        "HS256 with the client's secret": jwt.encode(claims, args.client_secret, algorithm="HS256", headers={"kid": kid}),
        "RS256 by a key of its own under the provider's kid": jwt.encode(claims, own_key, algorithm="RS256", headers={"kid": kid}),
    }


def jwt_mode(args):
    print("JWT mode: the ID token in OIDC_id_token, anyone the provider vouches for", flush=True)
    door, app = args.jwt_door, args.jwt_app
    for name, token in forgeries(args).items():
        person = requests.Session()
        answer = person.get(app + "/protected", headers={"OIDC_id_token": token}, allow_redirects=False)
        later = person.get(app + "/protected", allow_redirects=False)
        check(answer.status_code == 401 and later.status_code == 302 and later.headers.get("Location") == "/signin",
              f"straight to the app, {name}: refused, and nobody signed in", f"{answer.status_code}, then {later.status_code}")

    given = len(consents)
    person, page = through_door(args, door, "ada", "idp-ada-pw")
    check(page.status_code == 200 and shown_name(page) == "ada", "ada is signed in by the ID token Apache passes on", f"{page.status_code} {shown_name(page)}")
    check(len(consents) == given, "ada's consent, given once already, is not asked again")
    # mod_auth_openidc drops the browser's OIDC_ headers before setting its own: the app sees one.
    forged = person.get(door + "/protected", headers={"OIDC_id_token": "not.a-token"}, allow_redirects=False)
    check(forged.status_code == 200 and shown_name(forged) == "ada", "the browser's own OIDC_id_token through Apache changes nothing",
          f"{forged.status_code} {shown_name(forged)}")
    signed_in_once(person, door, "ada")
    admin = person.get(door + "/admin/users", allow_redirects=False)
    check(admin.status_code == 200, "ada's roles are the token's groups (admin): the users page answers", str(admin.status_code))
    sign_out(args, person, door, "ada")

    issued = time.time()
    other, page = through_door(args, door, "bo", "idp-bo-pw")
    check(page.status_code == 200 and shown_name(page) == "bo", "bo is signed in", f"{page.status_code} {shown_name(page)}")
    admin = other.get(door + "/admin/users", allow_redirects=False)
    check(admin.status_code == 403, "bo, in no group, is refused the users page", str(admin.status_code))

    # OIDCSessionMaxDuration 0: Apache's session ends with bo's ID token, and the browser is sent
    # to the provider for a new one (the app never sees the expired token, which would be a 401);
    # still signed in there, bo is back without a password.
    wait = max(0.0, issued + args.token_lifetime + 2 - time.time())
    print(f"  (waiting {wait:.0f} s for bo's ID token to expire)", flush=True)
    time.sleep(wait)
    expired = other.get(door + "/protected", allow_redirects=False)
    check(sends_to_provider(args, expired), "bo's ID token expired: Apache's session with it, the browser sent to the provider",
          str(expired.status_code))
    _, page = through_door(args, door, "bo", "no password", person=other)
    check(page.status_code == 200 and shown_name(page) == "bo", "bo is back with a new ID token, asked for no password",
          f"{page.status_code} {shown_name(page)}")


def main():
    parser = argparse.ArgumentParser()
    for name in ("--issuer", "--client-id", "--client-secret", "--header-door", "--jwt-door", "--jwt-app"):
        parser.add_argument(name, required=True)
    parser.add_argument("--token-lifetime", type=int, required=True)
    return run((header_mode, jwt_mode), parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
