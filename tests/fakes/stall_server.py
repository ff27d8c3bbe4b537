"""A local page server whose ``/stall`` holds the request until released.

``StallServer(route, hold)``: ``route(path)`` gives ``(content_type, body bytes)`` or
None (404). A GET of ``/stall`` sets ``stalled`` and waits on ``release`` for up to
``hold`` seconds, so a test knows the worker is inside its request and can signal or
cancel it there.
"""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        server = self.server
        if self.path == "/stall":
            server.stalled.set()
            server.release.wait(server.hold)
            return
        found = server.route(self.path)
        if found is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        ctype, body = found
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class StallServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, route, hold=30):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.route = route
        self.hold = hold
        self.stalled = threading.Event()
        self.release = threading.Event()
        self.url = "http://127.0.0.1:%d" % self.server_address[1]
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def close(self):
        self.release.set()
        self.shutdown()
        self.server_close()
