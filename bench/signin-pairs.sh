# Sourced by bench/signin-load.sh and bench/compare.sh (SIGN_INS=1): for each of the 8 users of
# bench/credentials.yml, a session and its CSRF token as the sign-in page gives them to a
# browser, each tried once (a 303 to / or the script stops). Exports SIGNIN_PAIRS for
# bench/signin.lua, which posts them in turn.
# Usage: signin_pairs URL FOLDER
#   URL: the server's (http://127.0.0.1:PORT, or https, whose certificate is not checked);
#   FOLDER: where to keep the response headers
signin_pairs() {
    local url="$1" out="$2" pairs="" user page token cookie body answer
    for user in 1 2 3 4 5 6 7 8; do
        page="$(curl -ks -D "$out/headers" "$url/signin")"
        token="$(printf '%s' "$page" | sed -n 's/.*name="_csrf" value="\([^"]*\)".*/\1/p' | head -n1)"
        cookie="$(awk -F'[ ;]' 'tolower($1) == "set-cookie:" { print $2; exit }' "$out/headers")"
        body="_csrf=$token&username=bench$user&password=bench-password"
        answer="$(curl -ks -o /dev/null -w '%{http_code} %header{location}' -H "Cookie: $cookie" --data "$body" "$url/signin")"
        [ "$answer" = "303 /" ] || { echo "error: a test sign-in of bench$user answered '$answer', not '303 /'" >&2; exit 1; }
        pairs="$pairs$cookie|$body;"
    done
    export SIGNIN_PAIRS="$pairs"
}
