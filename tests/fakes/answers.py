"""Sending a hostile API answer from a fake: JSON text as given (NaN, 1e400...), or a value encoded."""

import json


def send(handler, body, status=200):
    """Answer ``body`` on ``handler`` (a BaseHTTPRequestHandler): str/bytes as they are, else as JSON."""
    if isinstance(body, str):
        data = body.encode()
    elif isinstance(body, bytes):
        data = body
    else:
        data = json.dumps(body).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
