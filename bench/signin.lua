-- POST /signin for 8 users in turn, each with the session cookie and CSRF token that
-- bench/signin-pairs.sh prepared for it (SIGNIN_PAIRS: "cookie|body" entries separated by ";").
-- At the end it prints how many answers were a sign-in (303 to /) and how many were not.
local pairs_ = {}
for entry in string.gmatch(os.getenv("SIGNIN_PAIRS"), "[^;]+") do
  local cookie, body = string.match(entry, "([^|]+)|(.+)")
  table.insert(pairs_, { cookie = cookie, body = body })
end
local next_ = 0
local threads = {}
signed_in = 0
other = 0

setup = function(thread)
  table.insert(threads, thread)
end

request = function()
  next_ = next_ % #pairs_ + 1
  local pair = pairs_[next_]
  return wrk.format("POST", "/signin", {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Cookie"] = pair.cookie,
  }, pair.body)
end

response = function(status, headers, body)
  if status == 303 and headers["Location"] == "/" then signed_in = signed_in + 1 else other = other + 1 end
end

done = function(summary, latency, requests)
  local yes, no = 0, 0
  for _, thread in ipairs(threads) do
    yes = yes + thread:get("signed_in")
    no = no + thread:get("other")
  end
  io.write(string.format("Signed in: %d, other answers: %d\n", yes, no))
end
