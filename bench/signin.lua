-- POST /signin for 8 users in turn, each with the session cookie and CSRF token that
-- bench/signin-load.sh prepared for it (SIGNIN_PAIRS: "cookie|body" entries separated by ";").
local pairs_ = {}
for entry in string.gmatch(os.getenv("SIGNIN_PAIRS"), "[^;]+") do
  local cookie, body = string.match(entry, "([^|]+)|(.+)")
  table.insert(pairs_, { cookie = cookie, body = body })
end
local next_ = 0

request = function()
  next_ = next_ % #pairs_ + 1
  local pair = pairs_[next_]
  return wrk.format("POST", "/signin", {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Cookie"] = pair.cookie,
  }, pair.body)
end
