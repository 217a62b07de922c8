"""Sets a user's groups at the provider (groups.py USER [GROUP ...]), making the groups that do
not exist yet: as when someone moves team in the company's directory."""

import os
import sys

import django

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")
django.setup()

from django.contrib.auth.models import Group, User  # noqa: E402

username, names = sys.argv[1], sys.argv[2:]
user = User.objects.filter(username=username).first()
if user is None:
    sys.exit(f"no user {username} at the provider")
user.groups.set([Group.objects.get_or_create(name=name)[0] for name in names])
