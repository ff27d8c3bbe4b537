"""A package index on 127.0.0.1 speaking the simple repository API (PEP 503), for installs without the internet.

    index = SimpleIndex(wheel_dir, delay=1.0).start()
    PIP_INDEX_URL=index.url        every .whl in wheel_dir, one project per distribution name
    index.served                   the file names sent, in order (a request cut short counts too)
    index.close()

``delay`` seconds pass before each file is sent, as over a slow link: an install
cut short after some files has fetched those and not the rest.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _project(filename: str) -> str:
    return re.sub(r"[-_.]+", "-", filename.split("-")[0]).lower()


class SimpleIndex:
    def __init__(self, wheel_dir: str, delay: float = 0.0) -> None:
        self.wheel_dir = str(wheel_dir)
        self.delay = delay
        self.served: list[str] = []
        index = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                index._get(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d/simple/" % self.server.server_address[1]

    def start(self) -> SimpleIndex:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _files(self) -> list[str]:
        return sorted(n for n in os.listdir(self.wheel_dir) if n.endswith(".whl"))

    def _get(self, handler: BaseHTTPRequestHandler) -> None:
        path = handler.path.split("?")[0]
        if path.startswith("/simple/"):
            project = path[len("/simple/") :].strip("/").lower()
            links = []
            for name in self._files():
                if _project(name) == project:
                    with open(os.path.join(self.wheel_dir, name), "rb") as f:
                        digest = hashlib.sha256(f.read()).hexdigest()
                    links.append('<a href="/files/%s#sha256=%s">%s</a><br>' % (name, digest, name))
            if not links:
                return handler.send_error(404)
            body = ("<!DOCTYPE html><html><body>%s</body></html>" % "".join(links)).encode()
            content_type = "text/html"
            cache = "max-age=600, public"
        elif path.startswith("/files/") and path[len("/files/") :] in self._files():
            name = path[len("/files/") :]
            self.served.append(name)
            time.sleep(self.delay)
            with open(os.path.join(self.wheel_dir, name), "rb") as f:
                body = f.read()
            content_type = "application/octet-stream"
            cache = "max-age=365000000, immutable, public"  # what the public index sends for a file
        else:
            return handler.send_error(404)
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(body)))
            handler.send_header("Cache-Control", cache)
            handler.end_headers()
            handler.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass
