"""HTTP/1.1 by hand, stdlib only: GETs written as prebuilt bytes on one keep-alive socket,
each answer read to its Content-Length and nothing else. B1's floor (`run.RawGet`) and B11's
bare accounts (`many_clients.py`, a measured child that imports abws and the stdlib only)."""

from __future__ import annotations

import socket
import urllib.parse


def connect(base: str) -> socket.socket:
    """A keep-alive connection to `base`'s host, without Nagle's delay."""
    u = urllib.parse.urlsplit(base)
    sock = socket.create_connection((u.hostname, u.port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def exchange(sock: socket.socket, request: bytes) -> bytes:
    """Sends one request and returns its answer's body; anything but a 200 raises."""
    sock.sendall(request)
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the sandbox closed the connection before answering")
        buf += chunk
    head, _, body = buf.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"raw GET: {head.splitlines()[0]!r}")
    length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the sandbox closed the connection mid-body")
        body += chunk
    return body
