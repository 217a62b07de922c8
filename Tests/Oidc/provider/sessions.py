"""Prints the `sid` of each of USERNAME's sign-ins at the provider (the ID tokens it gave the
client, userinfo.session_id), oldest first, one a line.

    python3 sessions.py USERNAME
"""

import os
import sys

import django

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")
django.setup()

from oidc_provider.models import Token  # noqa: E402

for token in Token.objects.filter(user__username=sys.argv[1], client__client_id=os.environ["OIDC_CLIENT_ID"]).order_by("id"):
    sid = (token.id_token or {}).get("sid")
    if sid:
        print(sid)
