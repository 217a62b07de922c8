-- POST /signin with the form and cookie that bench/signin-load.sh prepared.
wrk.method = "POST"
wrk.body = os.getenv("SIGNIN_BODY")
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Cookie"] = os.getenv("SIGNIN_COOKIE")
