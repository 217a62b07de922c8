"""Renames a user at the provider (rename.py OLD NEW): the same subject with another
preferred_username, as when someone's username changes in the company's directory."""

import os
import sys

import django

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")
django.setup()

from django.contrib.auth.models import User  # noqa: E402

old, new = sys.argv[1:3]
if User.objects.filter(username=old).update(username=new) != 1:
    sys.exit(f"no user {old} at the provider")
