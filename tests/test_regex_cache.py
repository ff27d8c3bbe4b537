"""Compiled patterns kept between calls (worker/regex_cache.py).

What must hold: a kept pattern is the pattern ``re`` compiles (the engine's code compared, not
only the text); a call takes its patterns from the file the calls before it wrote; nothing a
call builds from its data is written; a damaged file is said on stderr and written again; the
switch turns it off; a file being written when the call ends is not left behind.
"""

import glob
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
from conftest import ROOT, run_worker, worker_env
from fakes.http_server import FakeWeb

from worker import protocol, regex_cache

pytestmark = pytest.mark.skipif(regex_cache.file_name() is None, reason="an interpreter without re._compiler")


@pytest.fixture(scope="module")
def web():
    server = FakeWeb().start()
    yield server
    server.stop()


def _files(cache):
    return glob.glob(os.path.join(str(cache), "websearch-worker", "regex-*.bin"))


def _fetch(web, env, *extra):
    r = run_worker(["fetch", web.url("/article"), "--allow-private", "--no-cache", *extra], env)
    assert r.returncode == 0, r
    assert protocol.parse(r.stdout)["ok"]
    return r


def test_a_fetch_writes_the_patterns_it_compiled_and_each_equals_a_fresh_compile(tmp_path, web):
    env = worker_env(tmp_path)
    _fetch(web, env)
    (path,) = _files(tmp_path / "cache")
    assert os.path.basename(path) == regex_cache.file_name()
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    table = regex_cache._load(path)
    assert len(table) > 100  # trafilatura's, the extractor's and the standard library's
    # trafilatura's XPaths, rewritten at their first use (extract/trafilatura_fast.py: code_patterns)
    assert any("viral" in str(pattern) for pattern, _flags in table)
    import _sre

    for (pattern, flags), (final, code, groups, groupindex, indexgroup) in table.items():
        kept = _sre.compile(pattern, final, memoryview(code).cast("I").tolist(), groups, groupindex, indexgroup)
        fresh = re._compiler.compile(pattern, flags)
        # Pattern equality compares the flags, the text and the engine's code itself
        assert kept == fresh and kept.groupindex == fresh.groupindex and kept.groups == fresh.groups, pattern
    # the second call writes nothing: every pattern it compiles at import is in the file
    before = os.stat(path).st_mtime_ns, os.stat(path).st_ino
    _fetch(web, env)
    assert (os.stat(path).st_mtime_ns, os.stat(path).st_ino) == before
    assert _files(tmp_path / "cache") == [path]
    assert not glob.glob(os.path.join(str(tmp_path / "cache"), "websearch-worker", "*.tmp"))


_PROBE = textwrap.dedent(
    """
    import json, os, re, sys, tempfile
    from worker import regex_cache
    folder = sys.argv[1]
    installed = regex_cache.install(folder)
    # a module imported now: its patterns are the code's own
    src = os.path.join(folder, "probe_mod")
    os.makedirs(src, exist_ok=True)
    with open(os.path.join(src, "probe_patterns.py"), "w") as f:
        f.write("import re\\nKEPT = re.compile(r'kept-(?P<word>[a-z]+)-zz', re.I)\\n"
                "class Text(str):\\n    pass\\n"  # as lxml hands re:test its literals: marshal refuses it
                "OTHER = re.compile(Text('subclass-[0-9]+'))\\n"
                "def build(text):\\n    return re.compile(text)\\n"  # a function: it could be handed data
                "BUILT = build('function-built-[0-9]+')\\n"
                "class Body:\\n    IN_CLASS = re.compile('class-body-[0-9]+')\\n")
    sys.path.insert(0, src)
    import probe_patterns
    # a pattern built at run time from a call's data: never kept
    secret = sys.argv[2]
    found = re.compile(re.escape(secret) + r"-\\d+").search(secret + "-42") is not None
    import trafilatura.core
    regex_cache.save()
    print(json.dumps({"installed": installed, "hits": regex_cache.hits(), "found": found,
                      "kept": probe_patterns.KEPT.match("KEPT-abc-ZZ").group("word")}))
    """
)


def _probe(folder, secret="zqx-call-data", extra=None):
    env = dict(os.environ)
    env.pop("WEBSEARCH_WORKER_PLAIN", None)
    env.update(extra or {})
    proc = subprocess.run(
        [sys.executable, "-I", "-c", _PROBE, str(folder), secret],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc.stderr


def test_the_next_process_takes_its_patterns_from_the_file_and_no_call_data_is_written(tmp_path):
    first, _ = _probe(tmp_path)
    assert first["installed"] and first["found"] and first["kept"] == "abc"
    assert first["hits"] == 0  # nothing kept yet
    (path,) = glob.glob(str(tmp_path / "regex-*.bin"))
    with open(path, "rb") as f:
        data = f.read()
    assert b"kept-(?P<word>" in data  # compiled while its module was imported
    assert b"zqx-call-data" not in data  # compiled from the call's data
    assert b"subclass-" not in data  # a str's subclass is not kept, and the rest is still written
    assert b"class-body-" in data and b"function-built-" not in data
    second, _ = _probe(tmp_path)
    assert second["hits"] > 100 and second["kept"] == "abc" and second["found"]


def test_a_damaged_file_is_said_and_written_again(tmp_path):
    _probe(tmp_path)
    (path,) = glob.glob(str(tmp_path / "regex-*.bin"))
    with open(path, "r+b") as f:  # one byte of the body changed: the checksum no longer holds
        f.seek(-10, os.SEEK_END)
        byte = f.read(1)
        f.seek(-10, os.SEEK_END)
        f.write(bytes([byte[0] ^ 0xFF]))
    out, err = _probe(tmp_path)
    assert "regex cache" in err and "checksum" in err and out["hits"] == 0 and out["kept"] == "abc"
    assert err.count("regex cache") == 1  # said once, not again when the file is written
    assert regex_cache._load(path)  # written again, whole
    out, err = _probe(tmp_path)
    assert out["hits"] > 100 and "regex cache" not in err


def test_code_the_engine_refuses_is_said_and_nothing_kept_is_used(tmp_path):
    import marshal
    import zlib

    name = regex_cache.file_name()
    pattern = r"kept-(?P<word>[a-z]+)-zz"
    table = {(pattern, int(re.I)): (int(re.I | re.U), b"\xff\xff\x00\x00" * 3, 1, {"word": 1}, (None, "word"))}
    body = marshal.dumps(table)
    with open(tmp_path / name, "wb") as f:
        f.write(regex_cache.MAGIC + zlib.crc32(body).to_bytes(4, "big") + body)
    out, err = _probe(tmp_path)
    assert "was refused" in err and out["kept"] == "abc" and out["hits"] == 0
    out, err = _probe(tmp_path)  # written again from what the process compiled
    assert out["hits"] > 100 and "regex cache" not in err


def test_the_switch_turns_it_off(tmp_path, web):
    env = worker_env(tmp_path, {"WEBSEARCH_WORKER_PLAIN": "regex_cache"})
    _fetch(web, env)
    assert _files(tmp_path / "cache") == []
    out, _ = _probe(tmp_path / "probe", extra={"WEBSEARCH_WORKER_PLAIN": "regex_cache"})
    assert out["installed"] is False and not glob.glob(str(tmp_path / "probe" / "regex-*"))


def test_a_file_being_written_when_the_call_ends_is_removed(tmp_path):
    from worker.runtime import Call

    half = tmp_path / "regex-x.bin.1.tmp"
    half.write_bytes(b"half")
    regex_cache._state["tmp"] = str(half)
    try:
        Call().cleanup()  # what a signal's exit runs
    finally:
        regex_cache._state["tmp"] = None
    assert not half.exists()


def test_the_reading_child_writes_to_the_parents_file(tmp_path, web):
    # every page in the reading child: the parent itself never imports the extractor
    env = worker_env(tmp_path, {"WEBSEARCH_WORKER_READ_CHILD": "always"})
    _fetch(web, env)
    (path,) = _files(tmp_path / "cache")
    # worker/pages/extract/hidden.py's pattern for instructions hidden in a page: the child's import
    assert any("disregard" in str(pattern) for pattern, _flags in regex_cache._load(path))
