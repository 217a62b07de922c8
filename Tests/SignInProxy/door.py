"""A company's front door for the sign-in proxy test: what oauth2-proxy answers nginx's
auth_request with. GET /door/sign-in?as=NAME&groups=A,B sets the door's cookie (the person
signed in at the company); GET /auth answers 200 with X-Auth-Request-User (and -Groups) for a
request carrying it, else 401; GET /door/sign-out forgets it.

    python3 door.py PORT
"""
import http.server
import sys
import urllib.parse


class Door(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def cookie(self):
        for part in (self.headers.get("Cookie") or "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == "door":
                return urllib.parse.unquote(value)
        return None

    def answer(self, status, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        if url.path == "/auth":
            who = self.cookie()
            if not who:
                return self.answer(401)
            name, _, groups = who.partition("|")
            return self.answer(200, [("X-Auth-Request-User", name), ("X-Auth-Request-Groups", groups)])
        if url.path == "/door/sign-in":
            value = query.get("as", [""])[0] + "|" + query.get("groups", [""])[0]
            return self.answer(303, [("Set-Cookie", "door=" + urllib.parse.quote(value) + "; Path=/"), ("Location", "/")])
        if url.path == "/door/sign-out":
            return self.answer(200, [("Set-Cookie", "door=; Path=/; Max-Age=0")])
        return self.answer(404)


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Door).serve_forever()
