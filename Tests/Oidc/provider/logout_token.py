"""Prints a logout token (OpenID Connect Back-Channel Logout 1.0) for USERNAME, signed by the
provider's own ID token signer with its RSA key, as a provider that sends back-channel
logouts would post it: `sub` (the provider's subject of the user), `events`, a fresh `jti`;
with --sid, the `sid` of one of the user's sign-ins too (sessions.py lists them), which ends
that sign-in's session alone.

    python3 logout_token.py USERNAME [--sid SID]
"""

import argparse
import os
import sys
import time
import uuid

import django

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from oidc_provider import settings as oidc_settings  # noqa: E402
from oidc_provider.lib.utils.token import encode_id_token  # noqa: E402
from oidc_provider.models import Client  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("username")
parser.add_argument("--sid")
args = parser.parse_args()
user = User.objects.get(username=args.username)
client = Client.objects.get(client_id=os.environ["OIDC_CLIENT_ID"])
subject = oidc_settings.get("OIDC_IDTOKEN_SUB_GENERATOR", import_str=True)(user=user)
payload = {
    "iss": settings.SITE_URL + "/openid",
    "aud": client.client_id,
    "iat": int(time.time()),
    "jti": str(uuid.uuid4()),
    "sub": str(subject),
    "events": {"http://schemas.openid.net/event/backchannel-logout": {}},
}
if args.sid:
    payload["sid"] = args.sid
print(encode_id_token(payload, client))
