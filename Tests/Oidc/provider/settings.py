"""A throwaway django-oidc-provider for Tests/Oidc/run.sh: loopback only, its database in
OIDC_WORK, the issuer http://127.0.0.1:OIDC_PORT/openid."""

import os

BASE = os.path.dirname(os.path.abspath(__file__))
WORK = os.environ["OIDC_WORK"]
PORT = os.environ["OIDC_PORT"]

SECRET_KEY = os.environ.get("OIDC_DJANGO_SECRET", "test-only-" + PORT)
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
INSTALLED_APPS = [
    "django.contrib.auth", "django.contrib.contenttypes", "django.contrib.sessions", "django.contrib.messages", "oidc_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
ROOT_URLCONF = "urls"
TEMPLATES = [{
    "BACKEND": "django.template.backends.django.DjangoTemplates",
    "DIRS": [os.path.join(BASE, "templates")],
    "APP_DIRS": True,
    "OPTIONS": {"context_processors": ["django.template.context_processors.request", "django.contrib.auth.context_processors.auth"]},
}]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(WORK, "provider.db")}}
USE_TZ = True
LOGIN_URL = "/accounts/login/"
SITE_URL = f"http://127.0.0.1:{PORT}"
# The user's name, email and username in the ID token itself, as Micro reads them.
OIDC_IDTOKEN_INCLUDE_CLAIMS = True
# How long an ID token lives: django-oidc-provider's ten minutes, unless a test wants to see one
# expire (OIDC_IDTOKEN_EXPIRE, in seconds).
OIDC_IDTOKEN_EXPIRE = int(os.environ.get("OIDC_IDTOKEN_EXPIRE", 600))
OIDC_USERINFO = "userinfo.claims"
# `groups` beside them (userinfo.GroupClaims): the roles MICRO_OIDC_USERS=any gives.
OIDC_EXTRA_SCOPE_CLAIMS = "userinfo.GroupClaims"
# `sid` in the ID token (userinfo.session_id): what a logout token's `sid` names.
OIDC_IDTOKEN_PROCESSING_HOOK = "userinfo.session_id"
