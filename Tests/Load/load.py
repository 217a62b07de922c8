#!/usr/bin/env python3
"""Load and fault checks of Micro's SampleApp over 127.0.0.1 (run by Tests/Load/run.sh).

Each check starts its own SampleApp process (production mode, the default settings unless
said otherwise), drives it with asyncio clients, reads the server's memory (VmRSS) and open
descriptors from /proc, and stops it with SIGTERM (a clean exit is part of every check):

  soak        256 connections for --soak-seconds (60): static files, a signed-in rendered page,
              and failed sign-ins from a few connections; zero 5xx, zero dropped connections,
              RSS after the load within 20% of RSS after a warm-up.
  slow        500 connections sending their headers one byte at a time, cut off by the header
              timeout, while a normal client is served within a second each time (not counting
              any wait for a CPU that other processes hold, measured from /proc's schedstat).
  overflow    connections beyond MICRO_MAX_CONNECTIONS get a 503 (or a bare close in a flood),
              the admitted ones are not disturbed, and the log says so in a line or two.
  disconnect  clients that vanish (RST or FIN) mid-request and mid-response: descriptors back
              to the baseline, RSS within a tolerance, the server still answers.
  flood       anonymous clients post 480 KB usernames and 1 MiB forms of empty fields while a
              real user signs in and reads pages: every one of the user's requests answered as
              usual, the server's RSS back within a bound after the flood.

Only the standard library. Exits 1 when a target is missed, naming it.
"""

import argparse
import asyncio
import atexit
import http.client
import os
import random
import re
import secrets
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

HOST = "127.0.0.1"
USERNAME, PASSWORD = "user", "secret123"
STATIC_PATHS = ["/css/app.css", "/js/app.js"]
LARGE_FILE = "/large.bin"
REQUEST_TIMEOUT = 30.0

failures = []
running = []


def say(text=""):
    print(f"[load] {text}", flush=True)


def check(ok, target, figures):
    """Records a target as met or missed, with the figures that show it."""
    say(f"  {'ok  ' if ok else 'FAIL'} {target}: {figures}")
    if not ok:
        failures.append(f"{target}: {figures}")
    return ok


# MARK: - The server


class Server:
    """A SampleApp process on a free port, its log in a file."""

    def __init__(self, binary, workdir, name, env=None):
        self.port = free_port()
        self.log_path = os.path.join(workdir, f"server-{name}.log")
        variables = dict(os.environ)
        variables.update({
            "HOST": HOST, "PORT": str(self.port), "MICRO_ENV": "production",
            "MICRO_SESSION_SECRET": secrets.token_hex(32),
            # credentials.yml's demo user, deliberately: production refuses it otherwise.
            "MICRO_ALLOW_DEMO_USERS": "1",
        })
        variables.update(env or {})
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen([binary], cwd=workdir, env=variables, stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.process.pid
        running.append(self.process)

    async def ready(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"the server exited with status {self.process.returncode}; its log:\n{self.tail()}")
            try:
                conn = await Connection.open(self.port)
                response = await conn.request("GET", "/css/app.css")
                conn.close()
                if response.status == 200:
                    # Micro's users never run it as root, and root hides what they would meet (a
                    # socket option only root may set): run.sh, run by root, hands over a --binary
                    # that runs it as an ordinary user (Tests/Support/sample-app-as-user).
                    if status_field(self.pid, "Uid") == 0:
                        raise SystemExit(f"the server (PID {self.pid}) runs as root: give --binary a command that runs it as an ordinary user")
                    return
            except (OSError, asyncio.TimeoutError, ProtocolError):
                pass
            await asyncio.sleep(0.1)
        raise SystemExit(f"the server did not answer within 30 s; its log:\n{self.tail()}")

    def alive(self):
        return self.process.poll() is None

    def rss_kib(self):
        return status_field(self.pid, "VmRSS")

    def peak_rss_kib(self):
        return status_field(self.pid, "VmHWM")

    def cpu_seconds(self):
        """User and system CPU time the server has used."""
        with open(f"/proc/{self.pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def fds(self):
        """The server's descriptors for connections, files and pipes: what a leak would keep.
        The runtime's own event plumbing (epoll, eventfd, timerfd, signalfd) is left out: it is
        made once, when first needed (a timer the first time a task sleeps, say), and kept."""
        count = 0
        for fd in os.listdir(f"/proc/{self.pid}/fd"):
            try:
                if not os.readlink(f"/proc/{self.pid}/fd/{fd}").startswith("anon_inode:"):
                    count += 1
            except OSError:
                pass
        return count

    def fd_targets(self):
        """What each descriptor names (a file, socket:[...], pipe:[...]), for a failure's detail."""
        targets = []
        for fd in sorted(os.listdir(f"/proc/{self.pid}/fd"), key=int):
            try:
                targets.append(f"{fd}={os.readlink(f'/proc/{self.pid}/fd/{fd}')}")
            except OSError:
                pass
        return targets

    async def settled_fds(self, target, seconds=5.0):
        """The descriptor count once it is at most `target`, or after `seconds`."""
        deadline = time.monotonic() + seconds
        count = self.fds()
        while count > target and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
            count = self.fds()
        return count

    def log_text(self):
        with open(self.log_path, "rb") as log:
            return log.read().decode("utf-8", "replace")

    def tail(self, lines=15):
        return "\n".join("    " + line for line in self.log_text().splitlines()[-lines:])

    def stop(self):
        """SIGTERM and wait: returns the exit status (None when it had to be killed)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                self.log.close()
                return None
        self.log.close()
        return self.process.returncode


def status_field(pid, name):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(name + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {name} in /proc/{pid}/status")


def run_delay(path):
    """Nanoseconds a thread has waited for a CPU (the second field of its schedstat)."""
    try:
        with open(path) as schedstat:
            return int(schedstat.read().split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def run_delays(pid):
    """`run_delay` of each thread of a process."""
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return {}
    return {tid: run_delay(f"/proc/{pid}/task/{tid}/schedstat") for tid in threads}


def free_port():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def mib(kib):
    return f"{kib / 1024:.1f} MiB"


async def stop_and_check(server, name):
    alive = server.alive()
    status = server.stop()
    text = server.log_text()
    crashed = any(word in text for word in ("Fatal error", "Crash", "Segmentation", "SIGSEGV", "SIGILL", "Stack dump"))
    check(alive and status == 0 and not crashed, f"{name}: the server ran throughout and exited cleanly on SIGTERM",
          f"alive until the end: {alive}, exit status {status}, crash trace in the log: {crashed}")


# MARK: - A minimal HTTP/1.1 client


class ProtocolError(Exception):
    pass


class Response:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def cookies(self):
        jar = {}
        for key, value in self.headers:
            if key.lower() == "set-cookie":
                pair = value.split(";", 1)[0]
                if "=" in pair:
                    name, _, content = pair.partition("=")
                    jar[name.strip()] = content.strip()
        return jar


class Connection:
    """One keep-alive connection: requests one at a time, responses read in full."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port, source=None, timeout=10.0):
        local = (source, 0) if source else None
        reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port, local_addr=local, limit=1 << 20), timeout)
        return cls(reader, writer)

    async def request(self, method, path, headers=None, body=b"", timeout=REQUEST_TIMEOUT):
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}"]
        for name, value in (headers or {}).items():
            lines.append(f"{name}: {value}")
        if body or method == "POST":
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        return await asyncio.wait_for(self.read_response(head_only=method == "HEAD"), timeout)

    async def read_response(self, head_only=False):
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as error:
            raise ProtocolError(f"closed before a response ({len(error.partial)} bytes of a head)") from None
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise ProtocolError(f"bad status line {lines[0]!r}")
        status = int(parts[1])
        headers = []
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers.append((name.strip(), value.strip()))
        response = Response(status, headers, b"")
        if head_only or status < 200 or status in (204, 304):
            return response
        try:
            if (response.header("Transfer-Encoding") or "").lower() == "chunked":
                chunks = []
                while True:
                    size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                    if size == 0:
                        while (await self.reader.readuntil(b"\r\n")) != b"\r\n":
                            pass
                        break
                    chunks.append(await self.reader.readexactly(size))
                    await self.reader.readexactly(2)
                response.body = b"".join(chunks)
            elif response.header("Content-Length") is not None:
                response.body = await self.reader.readexactly(int(response.header("Content-Length")))
            else:
                response.body = await self.reader.read()
        except asyncio.IncompleteReadError:
            raise ProtocolError(f"closed in the middle of a {status} response") from None
        return response

    def close(self):
        self.writer.close()

    def reset(self):
        """Closes with an RST instead of a FIN (SO_LINGER with a zero timeout)."""
        sock = self.writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.writer.transport.abort()


def csrf_token(html):
    match = re.search(rb'name="_csrf" value="([^"]+)"', html)
    if not match:
        raise ProtocolError("no CSRF token in the sign-in page")
    return match.group(1).decode()


def cookie_header(jar):
    return "; ".join(f"{name}={value}" for name, value in jar.items())


def form(fields):
    from urllib.parse import urlencode
    return urlencode(fields).encode()


async def sign_in(port):
    """A signed-in session's cookies, through the form as a browser does it."""
    conn = await Connection.open(port)
    try:
        page = await conn.request("GET", "/signin")
        jar = page.cookies()
        token = csrf_token(page.body)
        answer = await conn.request("POST", "/signin", {
            "Cookie": cookie_header(jar), "Content-Type": "application/x-www-form-urlencoded",
        }, form({"_csrf": token, "username": USERNAME, "password": PASSWORD}))
        if answer.status != 303:
            raise ProtocolError(f"sign-in answered {answer.status}")
        jar.update(answer.cookies())
        protected = await conn.request("GET", "/protected", {"Cookie": cookie_header(jar)})
        if protected.status != 200 or b"Only signed-in users" not in protected.body:
            raise ProtocolError(f"/protected answered {protected.status} after sign-in")
        return jar
    finally:
        conn.close()


# MARK: - Soak


class Tally:
    """Answers and failures of one kind of request."""

    def __init__(self):
        self.statuses = {}
        self.latencies = []
        self.unexpected = []

    def record(self, status, latency, expected):
        self.statuses[status] = self.statuses.get(status, 0) + 1
        self.latencies.append(latency)
        if status not in expected and len(self.unexpected) < 5:
            self.unexpected.append(status)

    def count(self):
        return sum(self.statuses.values())

    def summary(self):
        if not self.latencies:
            return "none"
        ordered = sorted(self.latencies)
        p50 = ordered[len(ordered) // 2] * 1000
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
        statuses = ", ".join(f"{status}: {count}" for status, count in sorted(self.statuses.items()))
        return f"{self.count()} ({statuses}); p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {ordered[-1] * 1000:.0f} ms"


class Load:
    """The soak's mix over `connections` connections until `stop` is set."""

    def __init__(self, port, sessions, connections, signin_connections):
        self.port = port
        self.sessions = sessions
        self.connections = connections
        self.signin_connections = signin_connections
        self.stop = asyncio.Event()
        self.static = Tally()
        self.page = Tally()
        self.signin = Tally()
        self.dropped = []
        self.errors = []
        self.addresses = 0

    def dropped_connection(self, what):
        if len(self.dropped) < 1000:
            self.dropped.append(what)

    async def browse(self, index):
        """Static files and the signed-in page, alternating at random, on one connection
        (a new one only when the server ends it, which counts as dropped)."""
        jar = self.sessions[index % len(self.sessions)]
        rng = random.Random(index)
        conn = None
        while not self.stop.is_set():
            try:
                if conn is None:
                    conn = await Connection.open(self.port)
                started = time.monotonic()
                if rng.random() < 0.5:
                    response = await conn.request("GET", rng.choice(STATIC_PATHS))
                    self.static.record(response.status, time.monotonic() - started, {200})
                else:
                    response = await conn.request("GET", "/protected", {"Cookie": cookie_header(jar)})
                    ok = response.status == 200 and b"Only signed-in users" in response.body
                    self.page.record(response.status if ok or response.status != 200 else 0, time.monotonic() - started, {200})
                    jar.update(response.cookies())
                if (response.header("Connection") or "").lower() == "close":
                    self.dropped_connection(f"the server closed a connection after a {response.status}")
                    conn.close()
                    conn = None
            except asyncio.TimeoutError:
                self.errors.append(f"no answer within {REQUEST_TIMEOUT:.0f} s")
                conn and conn.close()
                conn = None
            except (OSError, ProtocolError) as error:
                self.dropped_connection(f"{type(error).__name__}: {error}")
                conn and conn.close()
                conn = None
        if conn:
            conn.close()

    async def fail_sign_ins(self, index):
        """Failed sign-ins, each from a new connection: mostly unknown usernames from their own
        127.x address (a full bcrypt check each), some for the real user from 127.0.0.1
        (throttled: 429 after five)."""
        rng = random.Random(1000 + index)
        while not self.stop.is_set():
            self.addresses += 1
            if rng.random() < 0.8:
                number = self.addresses
                source = f"127.{100 + index}.{number // 250 % 250 + 1}.{number % 250 + 1}"
                username = f"nobody{rng.randrange(1 << 30)}"
            else:
                source, username = None, USERNAME
            conn = None
            try:
                conn = await Connection.open(self.port, source=source)
                started = time.monotonic()
                page = await conn.request("GET", "/signin")
                self.signin.record(page.status, time.monotonic() - started, {200})
                if page.status != 200:
                    continue
                jar = page.cookies()
                started = time.monotonic()
                answer = await conn.request("POST", "/signin", {
                    "Cookie": cookie_header(jar), "Content-Type": "application/x-www-form-urlencoded",
                }, form({"_csrf": csrf_token(page.body), "username": username, "password": "wrong-" + secrets.token_hex(4)}))
                redirected = answer.status == 303 and answer.header("Location") == "/signin"
                self.signin.record(answer.status if redirected or answer.status != 303 else 0, time.monotonic() - started, {303, 429})
            except asyncio.TimeoutError:
                self.errors.append(f"no answer to a sign-in within {REQUEST_TIMEOUT:.0f} s")
            except (OSError, ProtocolError) as error:
                self.dropped_connection(f"sign-in: {type(error).__name__}: {error}")
            finally:
                if conn:
                    conn.close()

    async def run(self, seconds, on_second=None):
        tasks = [asyncio.create_task(self.browse(i)) for i in range(self.connections - self.signin_connections)]
        tasks += [asyncio.create_task(self.fail_sign_ins(i)) for i in range(self.signin_connections)]
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            await asyncio.sleep(min(1.0, max(0.0, deadline - time.monotonic())))
            if on_second:
                on_second()
        self.stop.set()
        await asyncio.gather(*tasks)

    def requests(self):
        return self.static.count() + self.page.count() + self.signin.count()

    def server_errors(self):
        return sum(count for tally in (self.static, self.page, self.signin) for status, count in tally.statuses.items() if status >= 500)


async def soak(args):
    say(f"soak: {args.connections} connections, {args.soak_seconds} s after a {args.warmup_seconds} s warm-up")
    server = Server(args.binary, args.workdir, "soak")
    try:
        await server.ready()
        sessions = [await sign_in(server.port) for _ in range(4)]

        warmup = Load(server.port, sessions, args.connections, args.signin_connections)
        await warmup.run(args.warmup_seconds)
        await asyncio.sleep(2)
        rss_warm, fds_warm = server.rss_kib(), server.fds()
        say(f"  after the warm-up ({warmup.requests()} requests, {warmup.requests() / args.warmup_seconds:.0f}/s): "
            f"RSS {mib(rss_warm)}, {fds_warm} descriptors")

        samples = []
        load = Load(server.port, sessions, args.connections, args.signin_connections)
        started, server_cpu, own_cpu = time.monotonic(), server.cpu_seconds(), time.process_time()
        await load.run(args.soak_seconds, on_second=lambda: samples.append(server.rss_kib()))
        elapsed = time.monotonic() - started
        server_cpu, own_cpu = server.cpu_seconds() - server_cpu, time.process_time() - own_cpu
        await asyncio.sleep(2)
        rss_after = server.rss_kib()
        fds_after = await server.settled_fds(fds_warm)
        fd_list = server.fd_targets()
        say(f"  load: {load.requests()} requests in {elapsed:.0f} s ({load.requests() / elapsed:.0f}/s); "
            f"RSS under load {mib(min(samples))} to {mib(max(samples))}, peak (VmHWM) {mib(server.peak_rss_kib())}")
        say(f"    CPU: the server {server_cpu:.0f} s ({server_cpu / elapsed * 100:.0f}% of a core), "
            f"these clients {own_cpu:.0f} s ({own_cpu / elapsed * 100:.0f}%); load average {open('/proc/loadavg').read().split()[0]}")
        say(f"    static files   {load.static.summary()}")
        say(f"    signed-in page {load.page.summary()}")
        say(f"    failed sign-in {load.signin.summary()} (GET /signin + POST; {load.addresses} attempts)")

        check(load.server_errors() == 0, "soak: no 5xx", f"{load.server_errors()} answers 5xx")
        unexpected = load.static.unexpected + load.page.unexpected + load.signin.unexpected
        check(not unexpected, "soak: every answer as expected (200; 303 or 429 for a failed sign-in; 0 = a page "
              "without the signed-in content)", f"unexpected: {unexpected or 'none'}")
        check(not load.dropped, "soak: no dropped connections",
              f"{len(load.dropped)} dropped" + (f", first: {load.dropped[0]}" if load.dropped else ""))
        check(not load.errors, "soak: every request answered within 30 s",
              f"{len(load.errors)} not" + (f", first: {load.errors[0]}" if load.errors else ""))
        check(load.static.count() > 0 and load.page.count() > 0 and load.signin.statuses.get(303, 0) > 0,
              "soak: all three kinds of request were served", f"{load.static.count()} static, {load.page.count()} pages, "
              f"{load.signin.statuses.get(303, 0)} failed sign-ins checked with bcrypt")
        growth = rss_after / rss_warm
        check(growth <= 1.2, "soak: RSS after the load within 20% of RSS after the warm-up",
              f"{mib(rss_warm)} -> {mib(rss_after)} ({(growth - 1) * 100:+.1f}%)")
        check(fds_after <= fds_warm, "soak: descriptors back to the warm-up's count",
              f"{fds_warm} -> {fds_after}" + ("" if fds_after <= fds_warm else f": {', '.join(fd_list)}"))
    finally:
        await stop_and_check(server, "soak")


# MARK: - Slow clients


async def slow_clients(args):
    count, interval = args.slow_clients, args.slow_byte_interval
    say(f"slow clients: {count} connections sending their headers one byte every {interval * 1000:.0f} ms "
        f"(header timeout: the default, {args.header_timeout:.0f} s)")
    server = Server(args.binary, args.workdir, "slow")
    try:
        await server.ready()
        head = (f"GET /css/app.css HTTP/1.1\r\nHost: {HOST}\r\nX-Slow: " + "s" * 4000 + "\r\n\r\n").encode()
        results = []

        async def slow(index):
            reader, writer = await asyncio.open_connection(HOST, server.port)
            first_byte = time.monotonic()
            received = bytearray()
            closed_at, how = None, "open"

            async def read():
                nonlocal closed_at, how
                how = "FIN"
                try:
                    while True:
                        data = await reader.read(4096)
                        if not data:
                            break
                        received.extend(data)
                except OSError as error:
                    how = type(error).__name__
                closed_at = time.monotonic()

            reading = asyncio.create_task(read())
            sent = 0
            try:
                while closed_at is None and sent < len(head):
                    writer.write(head[sent:sent + 1])
                    sent += 1
                    await asyncio.sleep(interval * (0.8 + 0.4 * random.random()))
                    if time.monotonic() - first_byte > args.header_timeout + 10:
                        break
            except OSError:
                pass
            try:
                await asyncio.wait_for(reading, 5)
            except asyncio.TimeoutError:
                pass
            writer.close()
            results.append((closed_at - first_byte if closed_at else None, bytes(received), sent, how))

        tasks = []
        for index in range(count):
            tasks.append(asyncio.create_task(slow(index)))
            if index % 50 == 49:
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        open_fds = server.fds()

        # A normal client, a new connection each time, until the slow ones are gone: in a
        # thread of its own with blocking sockets, so the time it measures is the server's,
        # not the wait for this event loop busy with the slow ones. On a shared machine a
        # request may also wait for a CPU the other processes hold: that wait (of the client's
        # thread and of the server's busiest thread, from /proc's schedstat) is measured and
        # shown apart, and the 1 s bound is on the rest.
        samples, bad = [], []
        done = threading.Event()
        phase_started = time.monotonic()

        def normal_client():
            paths = ["/css/app.css", "/", "/signin"]
            own = f"/proc/self/task/{threading.get_native_id()}/schedstat"
            while not done.is_set():
                path = paths[len(samples) % len(paths)]
                server_before, own_before = run_delays(server.pid), run_delay(own)
                started = time.monotonic()
                try:
                    conn = http.client.HTTPConnection(HOST, server.port, timeout=5)
                    conn.request("GET", path)
                    response = conn.getresponse()
                    response.read()
                    conn.close()
                    if response.status != 200:
                        bad.append(f"{path}: {response.status}")
                except (OSError, http.client.HTTPException) as error:
                    bad.append(f"{path}: {type(error).__name__}: {error}")
                latency = time.monotonic() - started
                server_after = run_delays(server.pid)
                server_wait = max((server_after[tid] - server_before.get(tid, 0) for tid in server_after), default=0)
                waited = min(latency, (server_wait + run_delay(own) - own_before) / 1e9)
                samples.append((latency - waited, latency, waited, started - phase_started, path))
                time.sleep(0.1)

        normal = asyncio.create_task(asyncio.to_thread(normal_client))
        await asyncio.gather(*tasks)
        done.set()
        await normal
        latencies = [sample[1] for sample in samples]
        worst = max(samples)

        cut = [result[0] for result in results if result[0] is not None]
        timed_out = sum(1 for result in results if result[1].startswith(b"HTTP/1.1 408"))
        other = [result[1][:20] for result in results if result[1] and not result[1].startswith(b"HTTP/1.1 408")]
        say(f"  {server.fds() if server.alive() else '?'} descriptors at the end, {open_fds} while all were connected")
        say(f"  normal client: {len(samples)} requests while they trickled; median {statistics.median(latencies) * 1000:.0f} ms, "
            f"max {max(latencies) * 1000:.0f} ms; waiting for a CPU at most {max(sample[2] for sample in samples) * 1000:.0f} ms")
        check(not bad and worst[0] < 1.0 and max(latencies) < 5.0,
              "slow: the normal client was served, each answer within 1 s (besides waiting for a CPU) and 5 s in all",
              f"{len(samples)} requests; the worst {worst[0] * 1000:.0f} ms besides waiting for a CPU "
              f"({worst[1] * 1000:.0f} ms in all, {worst[4]} {worst[3]:.1f} s into the check); failures: {bad[:3] or 'none'}")
        check(open_fds > count, "slow: the slow connections were all open at once", f"{open_fds} server descriptors")
        low, high = args.header_timeout, args.header_timeout * 1.25 + 2
        in_time = [t for t in cut if low - 0.5 <= t <= high]
        check(len(cut) == count and len(in_time) == count,
              f"slow: every slow connection cut off by the server between {low - 0.5:.1f} and {high:.1f} s after its first byte",
              f"{len(cut)} of {count} cut off, {len(in_time)} in that window; "
              f"first {min(cut, default=0):.1f} s, last {max(cut, default=0):.1f} s; {timed_out} told 408 first")
        check(not other, "slow: the only answer a slow connection got was a 408", f"other answers: {other[:3] or 'none'}")
        untold = [f"{result[3]} after {result[2]} bytes at {result[0] or 0:.1f} s" for result in results if not result[1]]
        if untold:
            say(f"  closed without the 408: {untold[:5]}")
    finally:
        await stop_and_check(server, "slow")


# MARK: - Over the connection limit


async def overflow(args):
    limit, extra = args.overflow_limit, args.overflow_extra
    say(f"over the limit: MICRO_MAX_CONNECTIONS={limit}, {limit} connections kept open, then {extra} more")
    server = Server(args.binary, args.workdir, "overflow", {"MICRO_MAX_CONNECTIONS": str(limit)})
    try:
        await server.ready()
        await asyncio.sleep(0.5)
        baseline = server.fds()
        admitted = [await Connection.open(server.port) for _ in range(limit)]
        answers = await asyncio.gather(*(conn.request("GET", "/css/app.css") for conn in admitted), return_exceptions=True)
        served = sum(1 for answer in answers if isinstance(answer, Response) and answer.status == 200)
        check(served == limit, "overflow: the connections up to the limit are served", f"{served} of {limit}")

        outcomes = {}

        async def newcomer():
            try:
                conn = await Connection.open(server.port)
            except OSError as error:
                return f"connect failed: {error}"
            try:
                response = await conn.request("GET", "/css/app.css", timeout=5)
                closed = await asyncio.wait_for(conn.reader.read(1), 3) == b""
                return f"{response.status}{' and closed' if closed else ' left open'}"
            except ProtocolError:
                return "closed without an answer"
            except ConnectionResetError:
                return "reset without an answer"
            except asyncio.TimeoutError:
                return "no answer within 5 s"
            finally:
                conn.close()

        first_refusal = time.monotonic()
        for outcome in await asyncio.gather(*(newcomer() for _ in range(extra))):
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        say(f"  the {extra} over the limit: {outcomes}")
        refused = outcomes.get("503 and closed", 0)
        bare = outcomes.get("closed without an answer", 0) + outcomes.get("reset without an answer", 0)
        check(refused + bare == extra and refused >= min(extra, 64),
              "overflow: each one over the limit got a 503 and a close (at least the first 64), or a bare close",
              f"{refused} 503, {bare} bare closes, of {extra}")

        answers = await asyncio.gather(*(conn.request("GET", "/js/app.js") for conn in admitted), return_exceptions=True)
        served = sum(1 for answer in answers if isinstance(answer, Response) and answer.status == 200)
        check(served == limit, "overflow: the admitted connections were not disturbed", f"{served} of {limit} served again")
        for conn in admitted:
            conn.close()
        fds = await server.settled_fds(baseline)
        check(fds <= baseline, "overflow: descriptors back to the baseline", f"{baseline} -> {fds}")
        conn = await Connection.open(server.port)
        response = await conn.request("GET", "/")
        conn.close()
        check(response.status == 200, "overflow: a new connection is served afterwards", f"status {response.status}")
        # The first refusal is logged at once, the rest as one count when ten seconds have passed.
        await asyncio.sleep(max(0.0, first_refusal + 11 - time.monotonic()))
        # Each line from its message on: after the logging module's tag ([MicroCore], say).
        lines = [re.split(r"\[Micro\w*\] ", line, maxsplit=1)[-1] for line in server.log_text().splitlines() if "Refused" in line]
        counted = re.match(r"Refused (\d+) more", lines[1]) if len(lines) == 2 else None
        check(len(lines) == 2 and counted and int(counted.group(1)) == extra - 1,
              "overflow: the refusals are logged in two lines (the first, then a count), not one per connection",
              f"{len(lines)} lines: " + " / ".join(line[:90] for line in lines[:3]))
    finally:
        await stop_and_check(server, "overflow")


# MARK: - Abrupt disconnects


async def disconnect_round(port, jar, rng, size):
    """One client that leaves abruptly, at a random point and in a random way."""
    kind = rng.choice(["connect", "half-head", "half-body", "mid-file", "pipelined-files", "before-page"])
    rude = rng.random() < 0.5
    conn = await Connection.open(port)
    try:
        if kind == "half-head":
            conn.writer.write(f"GET /css/app.css HTTP/1.1\r\nHost: {HOST}\r\nX-Half: ".encode())
        elif kind == "half-body":
            conn.writer.write(
                (f"POST /signin HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                 f"Content-Length: 100000\r\nCookie: {cookie_header(jar)}\r\n\r\n").encode() + b"username=" + b"u" * 30000)
        elif kind == "mid-file":
            conn.writer.write(f"GET {LARGE_FILE} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
            await conn.reader.readexactly(rng.randrange(1, 256 << 10))
        elif kind == "pipelined-files":
            conn.writer.write(f"GET {LARGE_FILE} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode() * 5)
            await conn.reader.readexactly(rng.randrange(1, min(size * 2, 4 << 20)))
        elif kind == "before-page":
            conn.writer.write(f"GET /protected HTTP/1.1\r\nHost: {HOST}\r\nCookie: {cookie_header(jar)}\r\n\r\n".encode())
        await conn.writer.drain()
        await asyncio.sleep(rng.random() * 0.02)
    finally:
        if rude:
            conn.reset()
        else:
            conn.close()
    return kind, rude


async def disconnects(args):
    rounds = args.disconnect_clients
    say(f"abrupt disconnects: {rounds} clients leaving mid-request and mid-response (RST or FIN), 50 at a time")
    server = Server(args.binary, args.workdir, "disconnect")
    try:
        await server.ready()
        jar = await sign_in(server.port)
        size = os.path.getsize(os.path.join(args.workdir, "public", LARGE_FILE.lstrip("/")))
        rng = random.Random(7)
        kinds = {}

        async def wave(total):
            semaphore = asyncio.Semaphore(50)

            async def one():
                async with semaphore:
                    try:
                        kind, rude = await disconnect_round(server.port, jar, rng, size)
                        key = f"{kind}/{'RST' if rude else 'FIN'}"
                        kinds[key] = kinds.get(key, 0) + 1
                    except (OSError, asyncio.IncompleteReadError) as error:
                        kinds[type(error).__name__] = kinds.get(type(error).__name__, 0) + 1

            await asyncio.gather(*(one() for _ in range(total)))

        async def still_serves():
            conn = await Connection.open(server.port)
            try:
                big = await conn.request("GET", LARGE_FILE)
                page = await conn.request("GET", "/protected", {"Cookie": cookie_header(jar)})
                return big.status == 200 and len(big.body) == size and page.status == 200
            finally:
                conn.close()

        # Warm-up: the same faults, so that pools and caches are at their size.
        await wave(max(200, rounds // 5))
        await asyncio.sleep(2)
        baseline_fds, baseline_rss = server.fds(), server.rss_kib()
        say(f"  after a warm-up of the same faults: {baseline_fds} descriptors, RSS {mib(baseline_rss)}")
        kinds.clear()
        started = time.monotonic()
        peak_fds = baseline_fds

        async def sample():
            nonlocal peak_fds
            while True:
                peak_fds = max(peak_fds, server.fds())
                await asyncio.sleep(0.05)

        sampler = asyncio.create_task(sample())
        await wave(rounds)
        sampler.cancel()
        say(f"  {sum(kinds.values())} clients in {time.monotonic() - started:.1f} s, up to {peak_fds} server descriptors: "
            + ", ".join(f"{key} {count}" for key, count in sorted(kinds.items())))
        fds = await server.settled_fds(baseline_fds, seconds=10)
        await asyncio.sleep(1)
        rss = server.rss_kib()
        check(fds <= baseline_fds, "disconnects: descriptors back to the baseline", f"{baseline_fds} -> {fds}")
        growth = rss - baseline_rss
        check(growth <= baseline_rss * 0.05, "disconnects: RSS back within 5% of the baseline",
              f"{mib(baseline_rss)} -> {mib(rss)} ({growth / baseline_rss * 100:+.1f}%, "
              f"{growth * 1024 / max(1, rounds):+.0f} bytes per client)")
        check(await still_serves(), "disconnects: the server still serves the large file and the signed-in page", "")
    finally:
        await stop_and_check(server, "disconnect")


# MARK: - Hostile sign-in input


async def flood(args):
    seconds = args.flood_seconds
    say(f"flood: {args.flood_clients} clients posting 480 KB usernames and 1 MiB forms of empty fields for {seconds:.0f} s, "
        "while a real user signs in and reads pages")
    server = Server(args.binary, args.workdir, "flood")
    try:
        await server.ready()
        # The server's memory after a first real sign-in and page, before the flood.
        await sign_in(server.port)
        await asyncio.sleep(1)
        rss_before = server.rss_kib()
        stop = asyncio.Event()
        sent = {"username": 0, "fields": 0}
        answers = {}
        hostile_errors = []
        # Raw UTF-8 "İ"s, just under the 500,000 bytes a form's fields may take (a longer one gets a
        # 413 before the sign-in reads it), and a form of empty fields just under the 1 MiB body limit.
        name = "İ".encode() * 240_000
        fields = b"a&" * ((1 << 20) // 2 - 64)

        async def flooder(index):
            rng = random.Random(index)
            attempt = 0
            while not stop.is_set():
                attempt += 1
                # A new address for each attempt: the per-address limit does not stop them.
                source = f"127.{200 + index}.{attempt // 250 % 250 + 1}.{attempt % 250 + 1}"
                kind = "username" if index % 3 != 2 else "fields"
                conn = None
                try:
                    conn = await Connection.open(server.port, source=source)
                    page = await conn.request("GET", "/signin")
                    token = csrf_token(page.body).encode()
                    body = (b"_csrf=" + token + b"&username=" + name + b"&password=x") if kind == "username" else (b"_csrf=" + token + b"&" + fields)
                    answer = await conn.request("POST", "/signin", {
                        "Cookie": cookie_header(page.cookies()), "Content-Type": "application/x-www-form-urlencoded",
                    }, body)
                    sent[kind] += 1
                    answers[(kind, answer.status)] = answers.get((kind, answer.status), 0) + 1
                except asyncio.TimeoutError:
                    hostile_errors.append(f"{kind}: no answer within {REQUEST_TIMEOUT:.0f} s")
                except (OSError, ProtocolError) as error:
                    hostile_errors.append(f"{kind}: {type(error).__name__}: {error}")
                finally:
                    if conn:
                        conn.close()
                await asyncio.sleep(rng.random() * 0.01)

        user_latencies, user_failures, peak = [], [], [rss_before]

        async def real_user():
            while not stop.is_set():
                started = time.monotonic()
                try:
                    jar = await sign_in(server.port)
                    user_latencies.append(("sign-in", time.monotonic() - started))
                    conn = await Connection.open(server.port)
                    try:
                        for path in ("/protected", "/tools/data-encoding", "/"):
                            started = time.monotonic()
                            page = await conn.request("GET", path, {"Cookie": cookie_header(jar)})
                            user_latencies.append((path, time.monotonic() - started))
                            if page.status != 200:
                                user_failures.append(f"{path}: {page.status}")
                    finally:
                        conn.close()
                except asyncio.TimeoutError:
                    user_failures.append(f"no answer within {REQUEST_TIMEOUT:.0f} s")
                except (OSError, ProtocolError) as error:
                    user_failures.append(f"{type(error).__name__}: {error}")
                peak.append(server.rss_kib())
                await asyncio.sleep(0.2)

        tasks = [asyncio.create_task(flooder(i)) for i in range(args.flood_clients)] + [asyncio.create_task(real_user())]
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.gather(*tasks)
        await asyncio.sleep(2)
        rss_after = server.rss_kib()
        sign_ins = [latency for what, latency in user_latencies if what == "sign-in"]
        pages = [latency for what, latency in user_latencies if what != "sign-in"]
        say(f"  hostile posts: {sent['username']} with a 480 KB username, {sent['fields']} with 1 MiB of empty fields; "
            f"answers {dict(sorted(answers.items()))}")
        say(f"  the real user: {len(sign_ins)} sign-ins (median {statistics.median(sign_ins or [0]) * 1000:.0f} ms, "
            f"max {max(sign_ins or [0]) * 1000:.0f} ms), {len(pages)} pages (median {statistics.median(pages or [0]) * 1000:.0f} ms, "
            f"max {max(pages or [0]) * 1000:.0f} ms)")
        say(f"  RSS {mib(rss_before)} before, at most {mib(max(peak))} during, {mib(rss_after)} after (VmHWM {mib(server.peak_rss_kib())})")
        check(sent["username"] > 0 and sent["fields"] > 0 and not hostile_errors,
              "flood: every hostile post was answered", f"errors: {hostile_errors[:3] or 'none'}")
        unexpected = {key: count for key, count in answers.items()
                      if not (key[0] == "username" and key[1] in (303, 429)) and not (key[0] == "fields" and key[1] == 413)}
        check(not unexpected, "flood: a 480 KB username got the ordinary failure (303, or 429), 1 MiB of fields a 413",
              f"unexpected: {unexpected or 'none'}")
        check(len(sign_ins) >= 3 and not user_failures and max(user_latencies, key=lambda x: x[1])[1] < 5.0,
              "flood: the real user signed in and read every page, each answer within 5 s",
              f"{len(sign_ins)} sign-ins, {len(pages)} pages; failures: {user_failures[:3] or 'none'}")
        check(rss_after - rss_before < 64 * 1024, "flood: RSS after the flood within 64 MiB of before it",
              f"{mib(rss_before)} -> {mib(rss_after)}")
    finally:
        await stop_and_check(server, "flood")


# MARK: - Main


async def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the SampleApp executable")
    parser.add_argument("--workdir", required=True, help="its working folder: views/, public/ with large.bin, credentials.yml")
    parser.add_argument("--checks", default="soak,slow,overflow,disconnect,flood")
    parser.add_argument("--connections", type=int, default=256)
    parser.add_argument("--signin-connections", type=int, default=4)
    parser.add_argument("--warmup-seconds", type=float, default=10)
    parser.add_argument("--soak-seconds", type=float, default=60)
    parser.add_argument("--slow-clients", type=int, default=500)
    parser.add_argument("--slow-byte-interval", type=float, default=0.2)
    parser.add_argument("--header-timeout", type=float, default=10, help="the server's (default) header timeout")
    parser.add_argument("--overflow-limit", type=int, default=200)
    parser.add_argument("--overflow-extra", type=int, default=100)
    parser.add_argument("--disconnect-clients", type=int, default=2000)
    parser.add_argument("--flood-clients", type=int, default=6)
    parser.add_argument("--flood-seconds", type=float, default=20)
    args = parser.parse_args()

    checks = {"soak": soak, "slow": slow_clients, "overflow": overflow, "disconnect": disconnects, "flood": flood}
    for name in args.checks.split(","):
        started = time.monotonic()
        await checks[name](args)
        say(f"  ({name}: {time.monotonic() - started:.0f} s)")
    if failures:
        say(f"FAILED: {len(failures)} target(s) missed:")
        for failure in failures:
            say(f"  - {failure}")
        return 1
    say("all targets met")
    return 0


def kill_leftovers():
    for process in running:
        if process.poll() is None:
            process.kill()
            process.wait()


if __name__ == "__main__":
    atexit.register(kill_leftovers)
    # `timeout` and CI stop the checks with SIGTERM: the servers go with them.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    sys.exit(asyncio.run(main()))
