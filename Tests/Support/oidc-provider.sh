# Sourced, after sample-app.sh (it gives say, sample_app_wait and stop_by_pid), by the scripts
# that sign in through a real OpenID Provider (Tests/Oidc, Tests/Instances, Tests/SignInProxy/
# apache.sh): django-oidc-provider from PyPI in a virtual environment, its database made by
# Tests/Oidc/provider/setup.py (an RSA key, one client with a fresh secret, the users user,
# stranger, ada and bo), served on a port of 127.0.0.1 and stopped by its PID like the apps.
#
#   source "$repo/Tests/Support/sample-app.sh"
#   source "$repo/Tests/Support/oidc-provider.sh"
#   oidc_provider_install                                # sets OIDC_PYTHON, the venv's python
#   oidc_provider_start "$work" "$port" "$redirect_uri"... # sets OIDC_ISSUER, OIDC_CLIENT_ID,
#                                                        # OIDC_CLIENT_SECRET, OIDC_PROVIDER_PID
#   stop_by_pid "$OIDC_PROVIDER_PID" TERM                # in the script's cleanup
#
# The client is micro-sample unless OIDC_CLIENT_ID is exported before oidc_provider_start. So
# are its options, when a script needs them: OIDC_POST_LOGOUT_URIS lists where the provider's
# end-session endpoint may send the browser back, OIDC_REQUIRE_CONSENT=1 makes it ask each
# user's consent once, OIDC_IDTOKEN_EXPIRE gives ID tokens a life shorter than ten minutes (s).
#
# The provider's scripts (logout_token.py, sessions.py, rename.py) read the variables that
# oidc_provider_start exports (OIDC_WORK, OIDC_PORT, OIDC_CLIENT_ID, ...): run them with
# OIDC_PYTHON, from OIDC_PROVIDER_DIR, in the same shell or a child of it.

OIDC_REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OIDC_PROVIDER_DIR="$OIDC_REPO/Tests/Oidc/provider"
OIDC_PYTHON=""
OIDC_ISSUER=""
OIDC_PROVIDER_PID=""
# No __pycache__ folders in the work tree.
export PYTHONDONTWRITEBYTECODE=1

# Installs Django, django-oidc-provider, requests and selenium (Tests/Oidc's browser walk) into
# ${OIDC_VENV:-.build-oidc-venv} of the repository when any is missing: one venv, with what every
# script needs, so that running one script after another never installs again. Sets OIDC_PYTHON.
oidc_provider_install() {
    local venv="${OIDC_VENV:-$OIDC_REPO/.build-oidc-venv}"
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import oidc_provider, django, requests, selenium' 2>/dev/null; then
        say "installing django-oidc-provider and selenium into $venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q "django>=4.2,<5.3" "django-oidc-provider==0.9.0" "requests>=2.31" "selenium>=4.20"
    fi
    OIDC_PYTHON="$venv/bin/python"
}

# Makes the provider's database in the folder $1, its client with the redirect URIs that follow
# $2 and a fresh secret, then starts it on port $2 of 127.0.0.1, its output to $1/provider.log,
# and waits until its discovery document answers (fails when it does not within 30 s).
oidc_provider_start() {
    local work="$1" port="$2"
    shift 2
    OIDC_CLIENT_SECRET="$("$OIDC_PYTHON" -c 'import secrets; print(secrets.token_hex(24))')"
    export OIDC_WORK="$work" OIDC_PORT="$port" OIDC_CLIENT_ID="${OIDC_CLIENT_ID:-micro-sample}" OIDC_CLIENT_SECRET \
        OIDC_REDIRECT_URIS="$*"
    (cd "$OIDC_PROVIDER_DIR" && "$OIDC_PYTHON" setup.py)
    (cd "$OIDC_PROVIDER_DIR" && DJANGO_SETTINGS_MODULE=settings exec "$OIDC_PYTHON" -m django runserver "127.0.0.1:$port" --noreload) \
        >"$work/provider.log" 2>&1 &
    OIDC_PROVIDER_PID=$!
    OIDC_ISSUER="http://127.0.0.1:$port/openid"
    sample_app_wait "$OIDC_ISSUER/.well-known/openid-configuration" "$OIDC_PROVIDER_PID" "$work/provider.log" provider
    say "django-oidc-provider at $OIDC_ISSUER (PID $OIDC_PROVIDER_PID)"
}
