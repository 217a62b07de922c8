# Sourced by the scripts that need a real OpenID Provider (Tests/Oidc, Tests/SignInProxy/apache.sh):
# django-oidc-provider from PyPI, Tests/Oidc/provider's settings, users and one client, on a
# port of 127.0.0.1, stopped by its PID like the apps (Tests/Support/sample-app.sh, sourced
# first: it gives say, sample_app_wait and stop_by_pid).
#
#   source "$repo/Tests/Support/sample-app.sh"
#   source "$repo/Tests/Support/oidc-provider.sh"
#   oidc_provider_install                             # sets OIDC_PYTHON, the venv's python
#   export OIDC_CLIENT_ID=... OIDC_CLIENT_SECRET=... OIDC_REDIRECT_URIS="URI ..."
#   oidc_provider_start "$port" "$work"               # sets OIDC_ISSUER and OIDC_PROVIDER_PID
#   ...; stop_by_pid "$OIDC_PROVIDER_PID" TERM        # in the script's cleanup
#
# OIDC_POST_LOGOUT_URIS (optional) lists where the provider's end-session endpoint may send the
# browser back; OIDC_REQUIRE_CONSENT=1 makes it ask each user's consent once.
# Tests/Oidc/provider/setup.py says which users the provider has.

OIDC_PROVIDER_DIR="$repo/Tests/Oidc/provider"
OIDC_PYTHON=""
OIDC_ISSUER=""
OIDC_PROVIDER_PID=""

# Installs Django, django-oidc-provider, requests and selenium (Tests/Oidc's browser walk) into
# a virtual environment of their own, ${OIDC_VENV:-.build-oidc-venv}, when missing: one venv
# for every script that starts the provider. Sets OIDC_PYTHON.
oidc_provider_install() {
    local venv="${OIDC_VENV:-$repo/.build-oidc-venv}"
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import oidc_provider, django, requests, selenium' 2>/dev/null; then
        say "installing django-oidc-provider and selenium into $venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q "django>=4.2,<5.3" "django-oidc-provider==0.9.0" "requests>=2.31" "selenium>=4.20"
    fi
    OIDC_PYTHON="$venv/bin/python"
}

# Makes the provider's database in the folder $2 (a key, the client OIDC_CLIENT_ID, the users),
# then starts it on 127.0.0.1:$1, its output in $2/provider.log, and waits until its discovery
# document answers. Sets OIDC_ISSUER (http://127.0.0.1:$1/openid) and OIDC_PROVIDER_PID.
oidc_provider_start() {
    local port="$1" work="$2"
    export OIDC_WORK="$work" OIDC_PORT="$port"
    OIDC_ISSUER="http://127.0.0.1:$port/openid"
    (cd "$OIDC_PROVIDER_DIR" && "$OIDC_PYTHON" setup.py)
    (cd "$OIDC_PROVIDER_DIR" && DJANGO_SETTINGS_MODULE=settings exec "$OIDC_PYTHON" -m django runserver "127.0.0.1:$port" --noreload) \
        >"$work/provider.log" 2>&1 &
    OIDC_PROVIDER_PID=$!
    sample_app_wait "$OIDC_ISSUER/.well-known/openid-configuration" "$OIDC_PROVIDER_PID" "$work/provider.log" provider
    say "django-oidc-provider at $OIDC_ISSUER (PID $OIDC_PROVIDER_PID)"
}
