"""Sending a hostile answer from a fake: JSON text as given (NaN, 1e400...), a value encoded, or
(content type, text) for a page of another type."""

import json


def send(handler, body, status=200):
    """Answer ``body`` on ``handler`` (a BaseHTTPRequestHandler): str/bytes as they are, else as JSON."""
    ctype = "application/json"
    if isinstance(body, tuple):
        ctype, body = body
    if isinstance(body, str):
        data = body.encode()
    elif isinstance(body, bytes):
        data = body
    else:
        data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
