#!/usr/bin/env python3
"""What idle keep-alive connections cost a server in memory, for bench/peers/run.sh.

Usage: idle-connections.py PORT PID COUNT

Reads the server's resident set (VmRSS of process PID), opens COUNT connections to
127.0.0.1:PORT, sends GET /hello on each and reads its answer (so each connection is set up as
a browser's is after a request), reads the resident set again while all of them are open and
idle, then closes them. Prints "BEFORE_KIB AFTER_KIB OPEN" (OPEN: the connections still open
when the second reading was taken; a server may close some, and the count says so).
"""
import socket
import sys
import time


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


def answered(connection: socket.socket) -> bool:
    """Reads one answer with a Content-Length body; False when the server closed instead."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(4096)
        if not chunk:
            return False
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = connection.recv(4096)
        if not chunk:
            return False
        body += chunk
    return True


def main() -> int:
    port, pid, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    before = rss_kib(pid)
    request = f"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    connections = []
    try:
        for _ in range(count):
            connection = socket.create_connection(("127.0.0.1", port), timeout=10)
            connection.sendall(request)
            if answered(connection):
                connections.append(connection)
            else:
                connection.close()
        # Let the server settle (buffers released after the answers) before reading.
        time.sleep(1)
        after = rss_kib(pid)
        still_open = 0
        for connection in connections:
            connection.setblocking(False)
            try:
                still_open += 0 if connection.recv(1) == b"" else 1
            except BlockingIOError:
                still_open += 1
            except OSError:
                pass
    finally:
        for connection in connections:
            connection.close()
    print(before, after, still_open)
    return 0


if __name__ == "__main__":
    sys.exit(main())
