"""The loopback listener of ``abws.authorize_interactive``: receives the consent page's
redirect. Imported only by that function (``http.server`` is slow to import)."""

from __future__ import annotations

import http.server
import socketserver
import urllib.parse
from typing import Any, Dict, Optional


class Handler(http.server.BaseHTTPRequestHandler):
    server: "Server"

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        parsed = urllib.parse.urlsplit(self.path)
        if parsed.path != self.server.expected_path:
            self.send_error(404)
            return
        query = dict(urllib.parse.parse_qsl(parsed.query))
        self.server.result = query
        body = (
            b"<html><body><p>Authorization received. You can close this window.</p></body></html>"
            if "code" in query
            else b"<html><body><p>Authorization was not granted.</p></body></html>"
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # the query holds the code
        pass


class Server(socketserver.TCPServer):
    allow_reuse_address = True
    result: Optional[Dict[str, str]] = None
    expected_path = "/"
