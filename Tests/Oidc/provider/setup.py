"""Makes the provider's database: an RSA key, the client Micro (or the proxy in front of it) is,
and its users. The client is OIDC_CLIENT_ID with OIDC_CLIENT_SECRET, its redirect URIs
OIDC_REDIRECT_URIS and its post-logout redirect URIs OIDC_POST_LOGOUT_URIS (optional), both
separated by spaces; with OIDC_REQUIRE_CONSENT=1 the provider asks each user's consent once."""

import os
import sys

import django

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")
django.setup()

from django.contrib.auth.models import Group, User  # noqa: E402
from django.core.management import call_command  # noqa: E402
from oidc_provider.models import Client, ResponseType  # noqa: E402

call_command("migrate", verbosity=0)
call_command("creatersakey")
client = Client.objects.create(
    name="Micro SampleApp", client_type="confidential", client_id=os.environ["OIDC_CLIENT_ID"],
    client_secret=os.environ["OIDC_CLIENT_SECRET"], jwt_alg="RS256",
    require_consent=os.environ.get("OIDC_REQUIRE_CONSENT") == "1", reuse_consent=True,
    _redirect_uris="\n".join(os.environ["OIDC_REDIRECT_URIS"].split()),
    _post_logout_redirect_uris="\n".join(os.environ.get("OIDC_POST_LOGOUT_URIS", "").split()))
client.response_types.add(ResponseType.objects.get(value="code"))
admins = Group.objects.create(name="admin")
# user is in the store (credentials.yml); ada and bo are not: with MICRO_OIDC_USERS=any their
# roles are their groups here.
for username, password, email, first, groups in (
        ("user", "idp-user-pw", "user@example.com", "Ursula", []),
        ("stranger", "idp-stranger-pw", "stranger@elsewhere.example", "Sam", []),
        ("ada", "idp-ada-pw", "ada@example.com", "Ada", [admins]),
        ("bo", "idp-bo-pw", "bo@example.com", "Bo", [])):
    User.objects.create_user(username=username, password=password, email=email, first_name=first).groups.set(groups)
