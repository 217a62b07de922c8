#!/usr/bin/env bash
# SampleApp behind Apache httpd with mod_auth_openidc, the OpenID relying party of the single
# sign-on step's django-oidc-provider (Tests/Support/oidc-provider.sh): Apache signs the person
# in at the provider and tells the app who it is, in two virtual hosts, one per mode:
#
#   header: REMOTE_USER (the ID token's preferred_username) in X-Forwarded-User, to a SampleApp
#           with MICRO_PROXY_AUTH=header and the store's users only (MICRO_PROXY_USERS=existing,
#           the default: credentials.yml's `user` is the provider's `user`);
#   jwt:    the signed ID token itself in OIDC_id_token (OIDCPassIDTokenAs serialized), to a
#           SampleApp with MICRO_PROXY_AUTH=jwt that checks it against the provider's key set,
#           admitting anyone the provider vouches for (MICRO_PROXY_USERS=any) with the roles of
#           the token's `groups`.
#
# Tests/SignInProxy/apache.py walks both as a browser would. The Apache configuration is read
# from Sources/Micro/Micro.docc/BehindASignInProxy.md (its three blocks under "Apache with
# mod_auth_openidc"), so that the article says what is tested; only the provider's address and
# the app's are this test's.
#
#   bash Tests/SignInProxy/apache.sh
#
# Installs Debian's apache2 and libapache2-mod-auth-openidc when missing (as root, or through
# sudo), and the provider's Python packages as Tests/Oidc/run.sh does. Apache runs from a
# configuration of its own in the foreground, not as the system's service. Everything it starts
# is on free ports of 127.0.0.1 and stopped by its PID at the end, whatever happened; its files
# are in a temporary folder (KEEP_LOGS=1 keeps it).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
started=$SECONDS
say() { printf '[apache] %s\n' "$*"; }
source "$repo/Tests/Support/sample-app.sh"
source "$repo/Tests/Support/oidc-provider.sh"

# 1. Apache and its module, the provider's packages, the app.
apache=/usr/sbin/apache2
modules=/usr/lib/apache2/modules
if [ ! -x "$apache" ] || [ ! -f "$modules/mod_auth_openidc.so" ]; then
    # Where services may start on installation, Debian's own apache2 service starts on port 80
    # too; this script neither uses nor stops it.
    say "installing apache2 and libapache2-mod-auth-openidc (Debian)"
    as_root apt-get update -q >/dev/null
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends apache2 libapache2-mod-auth-openidc >/dev/null
fi
oidc_provider_install
python="$OIDC_PYTHON"
sample_app_build

work="$(mktemp -d "${TMPDIR:-/tmp}/micro-apache.XXXXXX")"
apache_pid=""
cleanup() {
    local status=$?
    # TERM: Apache's parent stops its children, then itself.
    [ -z "$apache_pid" ] || stop_by_pid "$apache_pid" TERM
    [ -z "$OIDC_PROVIDER_PID" ] || stop_by_pid "$OIDC_PROVIDER_PID" TERM
    sample_app_stop_all
    leave_work "$status" "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# 2. Ports, then the provider, with Apache as its client: one redirect URI for each virtual host
# (mod_auth_openidc's OIDCRedirectURI, relative, is completed with the request's host and port),
# and the page each sends the browser back to after signing out. The client asks for consent,
# as a company's provider may the first time a person meets a tool. Its ID tokens live for
# 30 s, so that the walk sees one expire (and Apache's session for the JWT mode with it).
port_idp="$(sample_app_free_port 4740)"
port_header_app="$(sample_app_free_port $((port_idp + 1)))"
port_jwt_app="$(sample_app_free_port $((port_header_app + 1)))"
port_header="$(sample_app_free_port $((port_jwt_app + 1)))"
port_jwt="$(sample_app_free_port $((port_header + 1)))"
header_door="http://127.0.0.1:$port_header"
jwt_door="http://127.0.0.1:$port_jwt"
export OIDC_CLIENT_ID=tools OIDC_REQUIRE_CONSENT=1 OIDC_IDTOKEN_EXPIRE=30 OIDC_POST_LOGOUT_URIS="$header_door/ $jwt_door/"
oidc_provider_start "$work" "$port_idp" "$header_door/redirect_uri" "$jwt_door/redirect_uri"
issuer="$OIDC_ISSUER"
client_secret="$OIDC_CLIENT_SECRET"
# The secret (exported by oidc_provider_start) and the passphrase reach Apache's configuration
# from its environment, as the article's `${OIDC_CLIENT_SECRET}` and `${OIDC_CRYPTO_PASSPHRASE}`.
export OIDC_CRYPTO_PASSPHRASE="$("$python" -c 'import secrets; print(secrets.token_hex(32))')"

# 3. The apps. Sign-out leads to mod_auth_openidc's logout (its redirect URI with `logout`),
# which ends Apache's session and the provider's, then comes back to the door's front page.
logout() { "$python" -c 'import sys, urllib.parse; print(sys.argv[1] + "/redirect_uri?logout=" + urllib.parse.quote(sys.argv[1] + "/", safe=""))' "$1"; }
sample_app_start "$work/app-header.log" PORT="$port_header_app" MICRO_TRUSTED_PROXIES=127.0.0.1 \
    MICRO_PROXY_AUTH=header MICRO_PROXY_SIGNOUT_URL="$(logout "$header_door")"
sample_app_wait "http://127.0.0.1:$port_header_app/css/app.css" "$SAMPLE_APP_PID" "$work/app-header.log"
# No trusted proxies: the token proves itself from any address.
sample_app_start "$work/app-jwt.log" PORT="$port_jwt_app" MICRO_PROXY_AUTH=jwt MICRO_PROXY_JWT_HEADER=OIDC_id_token \
    MICRO_PROXY_JWKS_URL="$issuer/jwks" MICRO_PROXY_ISSUER="$issuer" MICRO_PROXY_AUDIENCE=tools \
    MICRO_PROXY_USER_CLAIM=preferred_username MICRO_PROXY_USERS=any MICRO_PROXY_GROUPS_CLAIM=groups \
    MICRO_PROXY_SIGNOUT_URL="$(logout "$jwt_door")"
sample_app_wait "http://127.0.0.1:$port_jwt_app/css/app.css" "$SAMPLE_APP_PID" "$work/app-jwt.log"
say "SampleApp on $port_header_app (header) and $port_jwt_app (jwt)"

# 4. Apache: the article's blocks, in a configuration of this test's (its own files, loopback
# ports, the few modules it needs). Its workers run as nobody when it is started as root; they
# read nothing of the folder.
article=Sources/Micro/Micro.docc/BehindASignInProxy.md
# The block of the article's section that holds $1, with $2 replaced by $3.
article_block() {
    "$python" - "$article" "$@" <<'PY'
import re, sys
article, holding, example, actual = sys.argv[1:5]
section = open(article, encoding="utf-8").read().partition("### Apache with mod_auth_openidc")[2].partition("\n### ")[0]
blocks = [block for block in re.findall(r"```apache\n(.*?)```", section, re.S) if holding in block]
if len(blocks) != 1 or example not in blocks[0]:
    sys.exit(f"{article}: no single Apache block with {holding} and {example} under 'Apache with mod_auth_openidc'")
print(blocks[0].replace(example, actual).rstrip())
PY
}
provider_block="$(article_block OIDCProviderMetadataURL https://login.example.com "$issuer")"
header_block="$(article_block 'RequestHeader set X-Forwarded-User' 127.0.0.1:8080 "127.0.0.1:$port_header_app")"
jwt_block="$(article_block OIDCPassIDTokenAs 127.0.0.1:8080 "127.0.0.1:$port_jwt_app")"
run_as=""
[ "$(id -u)" -ne 0 ] || run_as=$'User #65534\nGroup #65534'
mkdir "$work/run"
cat >"$work/apache.conf" <<CONF
ServerRoot "$work"
ServerName 127.0.0.1
PidFile "$work/run/apache.pid"
DefaultRuntimeDir "$work/run"
ErrorLog "$work/apache-error.log"
LogLevel warn auth_openidc:info
$run_as
LoadModule mpm_event_module $modules/mod_mpm_event.so
LoadModule authn_core_module $modules/mod_authn_core.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule authz_user_module $modules/mod_authz_user.so
LoadModule headers_module $modules/mod_headers.so
LoadModule proxy_module $modules/mod_proxy.so
LoadModule proxy_http_module $modules/mod_proxy_http.so
LoadModule auth_openidc_module $modules/mod_auth_openidc.so
StartServers 1
ServerLimit 2
ThreadsPerChild 16
MaxRequestWorkers 32
MinSpareThreads 8
MaxSpareThreads 32
LogFormat "%h %u \"%r\" %>s" brief
CustomLog "$work/apache-access.log" brief
Listen 127.0.0.1:$port_header
Listen 127.0.0.1:$port_jwt

$provider_block

<VirtualHost 127.0.0.1:$port_header>
$header_block
</VirtualHost>

<VirtualHost 127.0.0.1:$port_jwt>
$jwt_block
</VirtualHost>
CONF
"$apache" -t -f "$work/apache.conf" >"$work/apache-check.log" 2>&1 || { cat "$work/apache-check.log" >&2; exit 1; }
"$apache" -f "$work/apache.conf" -DFOREGROUND >"$work/apache-output.log" 2>&1 &
apache_pid=$!
# Up when the door's front page sends a browser to the provider: mod_auth_openidc has read the
# provider's metadata by then. (It answers a 401 to what asks for no HTML, as scripts do.)
sample_app_wait "$header_door/" "$apache_pid" "$work/apache-error.log" Apache "$issuer/authorize"
say "$("$apache" -v | head -n 1 | sed 's/Server version: //'), mod_auth_openidc $(dpkg-query -W -f '${Version}' libapache2-mod-auth-openidc 2>/dev/null || echo '?') on $port_header (header) and $port_jwt (jwt), PID $apache_pid"

# 5. The walk.
timeout 240 "$python" "$repo/Tests/SignInProxy/apache.py" --issuer "$issuer" --client-id tools --client-secret "$client_secret" \
    --token-lifetime "$OIDC_IDTOKEN_EXPIRE" \
    --header-door "$header_door" --jwt-door "$jwt_door" --jwt-app "http://127.0.0.1:$port_jwt_app"
say "passed in $((SECONDS - started)) s"
