"""The guarantees every call keeps, checked on a finished real subprocess (README "Guarantees").

Exit code 0/1/2/130; stdout is exactly one block and nothing else; the code is
never ``internal`` (nor any item's); the exit code agrees with the block; no
temp dir is left; no API key on stdout or stderr; no traceback on stderr.
"""

import json
import os

from worker import protocol

EXIT_FOR = {"usage": 2, "cancelled": 130}


def call_dirs(env):
    base = env.get("WEBSEARCH_WORKER_TMPDIR")
    try:
        return [n for n in os.listdir(base) if n.startswith("call-")]
    except (FileNotFoundError, TypeError):
        return []


def _codes(payload):
    """Every error code in the payload: the call's and each item's."""
    codes = []
    err = payload.get("error") if isinstance(payload.get("error"), dict) else None
    if err:
        codes.append(err.get("code"))
    for holder in (payload, err or {}):
        for item in holder.get("results") or []:
            if isinstance(item, dict) and isinstance(item.get("error"), dict):
                codes.append(item["error"].get("code"))
            if isinstance(item, dict) and isinstance(item.get("fetch_error"), dict):
                codes.append(item["fetch_error"].get("code"))
    return codes


def check(result, env, keys=(), allowed_codes=None, debug=False):
    """Assert the guarantees; returns the payload.  ``debug``: WEBSEARCH_WORKER_DEBUG=1 was set (tracebacks allowed)."""
    where = repr(result)
    assert result.returncode in (0, 1, 2, 130), where
    lines = result.stdout.split("\n")
    assert lines[-1] == "" and len(lines) == 4, "stdout is not exactly one block: " + where
    assert lines[0] in (protocol.OK, protocol.ERROR) and lines[2] == protocol.DONE, where
    assert result.stdout.count(protocol.DONE) == 1, where
    payload = protocol.parse(result.stdout)
    assert lines[1].isascii(), where
    if payload["ok"]:
        assert result.returncode == 0, where
    else:
        code = payload["error"]["code"]
        assert result.returncode == EXIT_FOR.get(code, 1), where
        if allowed_codes is not None:
            assert code in allowed_codes, where
    assert "internal" not in _codes(payload), where
    assert not call_dirs(env), "temp dir left: " + where
    assert debug or "Traceback" not in result.stderr, where
    for key in keys:
        for form in (key, json.dumps(key)[1:-1]):
            assert form not in result.stdout and form not in result.stderr, "key leaked: " + where
    return payload
