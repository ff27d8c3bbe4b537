"""bootstrap/run.py building real venvs, hermetically.

Each test repo is a copy of bootstrap/run.py beside a stand-in worker package
(it imports a dependency from the venv and prints a SEARCH_OK block), a
requirements.txt naming tiny wheels this file builds with zipfile, and the
requirements.lock that pins them by hash.  pip and uv are pointed at that wheel
directory only (no index, no user config), so the installs are real and need
no registry.

venv + pip costs seconds, so tests share venvs where the behaviour under test
allows it; the uv path (about a second per venv) carries the tests that need
several fresh venvs.
"""

import base64
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import zipfile

import pytest
from conftest import ROOT

from worker import protocol

pytestmark = pytest.mark.slow  # real venvs, built by pip and uv

STAMP = "websearch-worker-ready.json"
UV = shutil.which("uv", path=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))

STANDIN_MAIN = """\
import json, sys
import wsw_dummy
payload = {"ok": True, "v": 1, "argv": sys.argv[1:], "dummy": wsw_dummy.VALUE,
           "prefix": sys.prefix, "isolated": sys.flags.isolated}
try:
    import wsw_extra
    payload["extra"] = wsw_extra.VALUE
except ImportError:
    pass
sys.stdout.write("SEARCH_OK\\n%s\\nSEARCH_DONE\\n" % json.dumps(payload))
"""


def build_wheel(wheeldir, name, version, value=None, extra=None):
    """A minimal pure-Python wheel: one module (when ``value`` is given), ``extra`` {path: text}, METADATA, WHEEL, RECORD."""
    dist = "%s-%s" % (name, version)
    files = {} if value is None else {"%s/__init__.py" % name: "VALUE = %r\n" % value}
    files.update(extra or {})
    files.update(
        {
            "%s.dist-info/METADATA" % dist: "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version),
            "%s.dist-info/WHEEL"
            % dist: "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        }
    )
    record = []
    for path, text in files.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
    record.append("%s.dist-info/RECORD,," % dist)
    files["%s.dist-info/RECORD" % dist] = "\n".join(record) + "\n"
    path = os.path.join(str(wheeldir), "%s-py3-none-any.whl" % dist)
    with zipfile.ZipFile(path, "w") as z:
        for name_, text in files.items():
            z.writestr(name_, text)
    return path


def bundled_pip():
    sys.path.insert(0, os.path.join(ROOT, "bootstrap"))
    try:
        import run
    finally:
        sys.path.pop(0)
    return run.bundled_pip()


@pytest.fixture(scope="module")
def wheeldir(tmp_path_factory):
    d = tmp_path_factory.mktemp("wheels")
    build_wheel(d, "wsw_dummy", "1.0", "dummy-ok")
    build_wheel(d, "wsw_extra", "1.0", "extra-ok")
    if bundled_pip():  # the bootstrap's pip step installs a pip into a venv made without one
        shutil.copy(bundled_pip(), str(d))
    return d


def sha256_file(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def lock_text(wheeldir, requirements):
    """What bootstrap/lock.py would write for these `name==version` lines, hashes of the wheels built here."""
    out = ["# input sha256 %s  requirements.txt" % hashlib.sha256(requirements.encode()).hexdigest()]
    for line in requirements.splitlines():
        name, _, version = line.partition("==")
        wheel = os.path.join(str(wheeldir), "%s-%s-py3-none-any.whl" % (name.replace("-", "_"), version))
        digest = sha256_file(wheel) if os.path.exists(wheel) else "0" * 64
        out.append("%s \\\n    --hash=sha256:%s" % (line, digest))
    return "\n".join(out) + "\n"


def write_requirements(repo, wheeldir, requirements):
    write(os.path.join(repo, "requirements.txt"), requirements)
    write(os.path.join(repo, "requirements.lock"), lock_text(wheeldir, requirements))


def make_repo(path, wheeldir, requirements="wsw_dummy==1.0\n"):
    os.makedirs(os.path.join(path, "bootstrap"))
    os.makedirs(os.path.join(path, "worker"))
    for name in ("run.py", "lock.py"):
        shutil.copy(os.path.join(ROOT, "bootstrap", name), os.path.join(path, "bootstrap", name))
    with open(os.path.join(path, "worker", "__init__.py"), "w") as f:
        f.write("")
    with open(os.path.join(path, "worker", "__main__.py"), "w") as f:
        f.write(STANDIN_MAIN)
    write_requirements(str(path), wheeldir, requirements)
    return str(path)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def boot_env(tmp, wheeldir, uv=False, **extra):
    env = dict(os.environ)
    for key in list(env):
        if key.startswith(("PIP_", "UV_", "WEBSEARCH_WORKER_", "PYTHON")) and key != "PYTHONDONTWRITEBYTECODE":
            del env[key]
    env.update(
        {
            # pip: this wheel directory only, whatever the machine's pip.conf says.
            "PIP_CONFIG_FILE": os.devnull,
            "PIP_NO_INDEX": "1",
            "PIP_FIND_LINKS": str(wheeldir),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "UV_NO_CONFIG": "1",
            "UV_NO_INDEX": "1",
            "UV_FIND_LINKS": str(wheeldir),
            "UV_CACHE_DIR": os.path.join(str(tmp), "uv-cache"),
            "UV_OFFLINE": "1",
            # Hosts that set this must still get .pyc files from the install.
            "PYTHONDONTWRITEBYTECODE": "1",
            "WEBSEARCH_WORKER_INSTALL_BACKOFF": "0.05",
        }
    )
    if uv:
        env["PATH"] = os.path.dirname(UV) + os.pathsep + env.get("PATH", "")
    else:
        env["WEBSEARCH_WORKER_NO_UV"] = "1"
    env.update(extra)
    return env


def boot(repo, args, env, timeout=300):
    proc = subprocess.run(
        [sys.executable, os.path.join(repo, "bootstrap", "run.py")] + list(args),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return proc.returncode, proc.stdout.decode("ascii"), proc.stderr.decode("utf-8", "replace")


def installs(stderr):
    return stderr.count("installing dependencies into")


def read_stamp(venv):
    with open(os.path.join(venv, STAMP)) as f:
        return json.load(f)


def newest_mtime(venv, skip):
    newest = 0
    for dirpath, dirnames, filenames in os.walk(venv):
        for name in filenames + dirnames:
            p = os.path.join(dirpath, name)
            if p != skip and not os.path.islink(p):
                newest = max(newest, os.lstat(p).st_mtime_ns)
    return newest


# ---------------------------------------------------------------------------
# pip path: one venv, shared by the tests below in order.


@pytest.fixture(scope="module")
def pip_repo(tmp_path_factory, wheeldir):
    tmp = tmp_path_factory.mktemp("piprepo")
    repo = make_repo(tmp / "repo", wheeldir)
    env = boot_env(tmp, wheeldir)
    rc, out, err = boot(repo, ["search", "first", "call"], env)
    return {"repo": repo, "env": env, "venv": os.path.join(repo, ".venv"), "first": (rc, out, err)}


def test_pip_first_call_installs_and_runs(pip_repo):
    rc, out, err = pip_repo["first"]
    assert rc == 0, err
    payload = protocol.parse(out)
    assert payload["argv"] == ["search", "first", "call"]
    assert payload["dummy"] == "dummy-ok"  # imported from the venv it just built
    assert payload["prefix"] == pip_repo["venv"]  # default location: <repo>/.venv
    assert payload["isolated"] == 1  # handed over with -I
    assert out.count("\n") == 3  # progress went to stderr, not stdout
    assert "first run: installing dependencies into %s" % pip_repo["venv"] in err
    assert "with pip" in err and "compiling bytecode" in err
    assert installs(err) == 1


def test_pip_stamp_is_whole_and_written_last(pip_repo):
    venv = pip_repo["venv"]
    stamp = read_stamp(venv)
    with open(os.path.join(pip_repo["repo"], "requirements.txt")) as f:
        assert stamp["requirements"] == f.read()
    assert stamp["root"] == pip_repo["repo"]
    assert stamp["python"] == "%d.%d.%d" % sys.version_info[:3]
    assert stamp["bootstrap"]
    assert bytes.fromhex(stamp["key"]).endswith(stamp["requirements"].encode())
    # The lock it was installed from, byte for byte, beside the stamp.
    lock = os.path.join(pip_repo["repo"], "requirements.lock")
    installed = os.path.join(venv, "websearch-worker-ready.lock")
    with open(lock, "rb") as a, open(installed, "rb") as b:
        assert a.read() == b.read()
    assert stamp["lock_sha256"] == sha256_file(lock)
    stamp_path = os.path.join(venv, STAMP)
    # Nothing in the venv is newer than the stamp, and no temp stamp was left.
    assert newest_mtime(venv, stamp_path) <= os.stat(stamp_path).st_mtime_ns
    assert [n for n in os.listdir(venv) if n.startswith("websearch-worker-ready")] == [
        "websearch-worker-ready.lock",
        STAMP,
    ]


def test_pip_install_compiled_bytecode_despite_dontwritebytecode(pip_repo):
    venv = pip_repo["venv"]
    libs = [
        os.path.join(dp, f)
        for dp, _, fs in os.walk(venv)
        for f in fs
        if f.startswith("__init__.") and "wsw_dummy" in dp
    ]
    assert any(p.endswith(".pyc") for p in libs), libs
    assert [f for f in os.listdir(os.path.join(pip_repo["repo"], "worker", "__pycache__")) if f.startswith("__main__.")]


def test_pip_second_call_takes_fast_path(pip_repo):
    rc, out, err = boot(pip_repo["repo"], ["search", "again"], pip_repo["env"])
    assert rc == 0 and protocol.parse(out)["argv"] == ["search", "again"]
    assert err == ""  # no install, no progress lines


def test_fast_path_imports_nothing_heavy(pip_repo):
    """The ready check reads two files and execs: no json, re or subprocess on the way."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", os.path.join(pip_repo["repo"], "bootstrap", "run.py"), "search", "fast"],
        env=pip_repo["env"],
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0 and protocol.parse(proc.stdout.decode())["argv"] == ["search", "fast"]
    imported = {
        line.split("|")[-1].strip() for line in proc.stderr.decode().splitlines() if line.startswith("import time:")
    }
    assert imported, proc.stderr  # -X importtime reported the bootstrap's own imports
    assert not imported & {"json", "re", "subprocess", "shutil", "platform", "fcntl", "signal"}, sorted(imported)


def test_pip_check_and_python_path(pip_repo):
    rc, out, _ = boot(pip_repo["repo"], ["--check"], pip_repo["env"])
    assert rc == 0 and out.strip() == "ready %s" % os.path.join(pip_repo["venv"], "bin", "python")
    rc, out, err = boot(pip_repo["repo"], ["--python-path"], pip_repo["env"])
    assert rc == 0 and out.strip() == os.path.join(pip_repo["venv"], "bin", "python") and err == ""


def test_pip_half_built_venv_is_never_ready(pip_repo):
    repo, env, venv = pip_repo["repo"], pip_repo["env"], pip_repo["venv"]
    stamp_path = os.path.join(venv, STAMP)
    saved = open(stamp_path).read()
    try:
        os.unlink(stamp_path)  # an install cut short: everything there but the stamp
        rc, out, _ = boot(repo, ["--check"], env)
        assert rc == 1 and out.strip() == "not ready: not installed"
        write(stamp_path, saved[: len(saved) // 2])  # a torn stamp (never produced by os.replace)
        rc, out, _ = boot(repo, ["--check"], env)
        assert rc == 1 and "unreadable" in out
        write(stamp_path + ".tmp-12345", saved)  # a temp stamp is not a stamp
        os.unlink(stamp_path)
        rc, out, _ = boot(repo, ["--check"], env)
        assert rc == 1
    finally:
        write(stamp_path, saved)
        if os.path.exists(stamp_path + ".tmp-12345"):
            os.unlink(stamp_path + ".tmp-12345")
    assert boot(repo, ["--check"], env)[0] == 0


def test_pip_changed_requirements_reinstall(pip_repo, wheeldir):
    repo, env, venv = pip_repo["repo"], pip_repo["env"], pip_repo["venv"]
    write_requirements(repo, wheeldir, "wsw_dummy==1.0\nwsw_extra==1.0\n")
    rc, out, _ = boot(repo, ["--check"], env)
    assert rc == 1 and "requirements.txt changed" in out
    rc, out, err = boot(repo, ["search", "x"], env)
    assert rc == 0, err
    assert protocol.parse(out)["extra"] == "extra-ok"
    assert installs(err) == 1 and "(requirements.txt changed)" in err
    assert "creating venv" not in err  # a once-ready venv is updated in place
    assert "warning" not in err  # the lock was written from this requirements.txt
    assert read_stamp(venv)["requirements"] == "wsw_dummy==1.0\nwsw_extra==1.0\n"


def test_pip_changed_lock_alone_reinstalls(pip_repo, wheeldir):
    """A lock written again (a pin moved) with requirements.txt unchanged: the venv follows the lock."""
    repo, env = pip_repo["repo"], pip_repo["env"]
    build_wheel(wheeldir, "wsw_extra", "1.1", "extra-1.1")
    lock = lock_text(wheeldir, "wsw_dummy==1.0\nwsw_extra==1.1\n").splitlines()
    lock[0] = "# input sha256 %s  requirements.txt" % sha256_file(os.path.join(repo, "requirements.txt"))
    write(os.path.join(repo, "requirements.lock"), "\n".join(lock) + "\n")
    rc, out, _ = boot(repo, ["--check"], env)
    assert rc == 1 and out.strip() == "not ready: requirements.lock changed"
    rc, out, err = boot(repo, ["search", "x"], env)
    assert rc == 0, err
    assert protocol.parse(out)["extra"] == "extra-1.1"
    assert installs(err) == 1 and "(requirements.lock changed)" in err and "creating venv" not in err
    assert boot(repo, ["search", "y"], env)[2] == ""  # and the fast path knows it


# ---------------------------------------------------------------------------
# Failure, retries, cancellation (pip path: `venv` + ensurepip is slow enough to interrupt).


def test_failing_install_retries_then_reports_bootstrap_failed(tmp_path, wheeldir):
    repo = make_repo(tmp_path / "repo", wheeldir, requirements="wsw_dummy==1.0\nwsw-no-such-package==9.9\n")
    env = boot_env(tmp_path, wheeldir, uv=bool(UV), WEBSEARCH_WORKER_INSTALL_ATTEMPTS="2")
    started = time.monotonic()
    rc, out, err = boot(repo, ["search", "x"], env)
    assert rc == 1, err
    payload = protocol.parse(out)
    e = payload["error"]
    assert e["code"] == "bootstrap_failed" and e["retryable"] is True
    assert e["hint"] and "--reinstall" in e["hint"]
    assert "wsw-no-such-package" in e["detail"]  # the installer's own last lines
    assert "retrying in 0.05s" in err and installs(err) == 1
    assert "creating venv" in err and err.count("creating venv") == 2  # retry starts from scratch
    assert time.monotonic() - started < 120
    assert boot(repo, ["--check"], env)[0] == 1
    # The next call tries again (and, with the requirement fixed, succeeds).
    rc, out, err = boot(repo, ["search", "x"], dict(env, WEBSEARCH_WORKER_INSTALL_ATTEMPTS="1"))
    assert rc == 1 and installs(err) == 1 and protocol.parse(out)["error"]["code"] == "bootstrap_failed"
    # --python-path answers on stdout too (hosts/pi reads the block there); only `mcp` keeps stdout for JSON-RPC
    for args in (["--python-path"],):
        rc, out, err = boot(repo, args, dict(env, WEBSEARCH_WORKER_INSTALL_ATTEMPTS="1"))
        assert rc == 1 and protocol.parse(out)["error"]["code"] == "bootstrap_failed", (args, out, err)
    write_requirements(repo, wheeldir, "wsw_dummy==1.0\n")
    rc, out, err = boot(repo, ["search", "x"], env)
    assert rc == 0 and protocol.parse(out)["dummy"] == "dummy-ok", err


def _start_install(repo, env):
    """A first call of the bootstrap, returned once it says it is creating the venv."""
    proc = subprocess.Popen(
        [sys.executable, os.path.join(repo, "bootstrap", "run.py"), "search", "x"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    line = b""
    while b"creating venv" not in line:
        line = proc.stderr.readline()
        if not line:
            proc.kill()
            raise AssertionError("bootstrap ended before creating the venv")
    return proc


def test_sigterm_during_install_leaves_no_ready_venv(tmp_path, wheeldir):
    repo = make_repo(tmp_path / "repo", wheeldir)
    env = boot_env(tmp_path, wheeldir)  # pip path
    proc = _start_install(repo, env)
    try:
        time.sleep(0.3)  # inside `python -m venv` / ensurepip
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
        elapsed = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert elapsed < 10, elapsed
    e = protocol.parse(out.decode("ascii"))["error"]
    assert e["code"] == "cancelled" and e["retryable"] is False
    assert boot(repo, ["--check"], env)[0] == 1
    # The interrupted venv is rebuilt by the next call.
    rc, out, err = boot(repo, ["search", "y"], env)
    assert rc == 0 and protocol.parse(out)["argv"] == ["search", "y"], err


def test_never_deletes_a_directory_that_is_not_a_venv(tmp_path, wheeldir):
    repo = make_repo(tmp_path / "repo", wheeldir)
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    env = boot_env(tmp_path, wheeldir, WEBSEARCH_WORKER_INSTALL_ATTEMPTS="1")
    rc, out, err = boot(repo, ["--venv", str(precious), "search", "x"], env)
    assert rc == 1 and protocol.parse(out)["error"]["code"] == "bootstrap_failed"
    assert "not a venv" in protocol.parse(out)["error"]["message"]
    assert (precious / "notes.txt").read_text() == "keep me"


# ---------------------------------------------------------------------------
# uv path (when uv is installed: requirements-dev.txt has it).

needs_uv = pytest.mark.skipif(UV is None, reason="uv is not installed (it is in requirements-dev.txt)")


@needs_uv
def test_uv_install_venv_flag_and_reinstall(tmp_path, wheeldir):
    repo = make_repo(tmp_path / "repo", wheeldir)
    venv = str(tmp_path / "elsewhere" / "venv")
    env = boot_env(tmp_path, wheeldir, uv=True, WEBSEARCH_WORKER_VENV=venv)
    rc, out, err = boot(repo, ["search", "x"], env)
    assert rc == 0, err
    assert protocol.parse(out)["prefix"] == venv
    assert "with uv" in err and installs(err) == 1
    assert not os.path.exists(os.path.join(repo, ".venv"))
    pycs = [f for dp, _, fs in os.walk(venv) if dp.endswith(os.path.join("wsw_dummy", "__pycache__")) for f in fs]
    assert pycs, "uv --compile-bytecode left no .pyc"
    # --venv beats the environment variable.
    other = str(tmp_path / "other")
    rc, out, _ = boot(repo, ["--venv", other, "--check"], env)
    assert rc == 1 and "not installed" in out
    # --reinstall rebuilds from scratch, then exits 0 when no command follows.
    marker = os.path.join(venv, "bin", "left-behind")
    write(marker, "")
    rc, out, err = boot(repo, ["--reinstall"], env)
    assert rc == 0 and out == "", err
    assert "reinstall requested" in err and not os.path.exists(marker)
    assert boot(repo, ["--check"], env)[0] == 0


@needs_uv
def test_uv_five_racing_first_calls_install_once(tmp_path, wheeldir):
    repo = make_repo(tmp_path / "repo", wheeldir)
    env = boot_env(tmp_path, wheeldir, uv=True)
    venv = os.path.join(repo, ".venv")
    stamp_path = os.path.join(venv, STAMP)
    seen = []
    stop = threading.Event()

    def watch_stamp():  # every read sees no stamp or a whole one
        while not stop.is_set():
            try:
                with open(stamp_path) as f:
                    seen.append(json.loads(f.read())["requirements"])
            except FileNotFoundError:
                pass
            time.sleep(0.002)

    watcher = threading.Thread(target=watch_stamp, daemon=True)
    watcher.start()
    procs = [
        subprocess.Popen(
            [sys.executable, os.path.join(repo, "bootstrap", "run.py"), "search", str(i)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        for i in range(5)
    ]
    results = [(p.communicate(timeout=300), p.returncode) for p in procs]
    stop.set()
    watcher.join()
    errs = "".join(e.decode() for (_, e), _ in results)
    for i, ((out, err), rc) in enumerate(results):
        assert rc == 0, err
        assert protocol.parse(out.decode("ascii"))["argv"] == ["search", str(i)]
    assert installs(errs) == 1, errs
    assert errs.count("creating venv") == 1
    assert seen and set(seen) == {"wsw_dummy==1.0\n"}


@needs_uv
def test_a_file_whose_hash_is_not_in_the_lock_is_not_installed(tmp_path, wheeldir):
    repo = make_repo(tmp_path / "repo", wheeldir)
    lock = os.path.join(repo, "requirements.lock")
    with open(lock) as f:
        text = f.read()
    write(lock, text.replace(sha256_file(os.path.join(str(wheeldir), "wsw_dummy-1.0-py3-none-any.whl")), "1" * 64))
    env = boot_env(tmp_path, wheeldir, uv=True, WEBSEARCH_WORKER_INSTALL_ATTEMPTS="1")
    rc, out, err = boot(repo, ["search", "x"], env)
    assert rc == 1, err
    e = protocol.parse(out)["error"]
    assert e["code"] == "bootstrap_failed" and "hash" in e["detail"].lower(), e
    assert boot(repo, ["--check"], env)[0] == 1


@needs_uv
def test_a_lock_written_from_other_requirements_is_installed_with_a_warning(tmp_path, wheeldir):
    repo = make_repo(tmp_path / "repo", wheeldir)
    write(os.path.join(repo, "requirements.txt"), "wsw_dummy==1.0\nwsw_extra==1.0\n")  # lock.py not run
    rc, out, err = boot(repo, ["search", "x"], boot_env(tmp_path, wheeldir, uv=True))
    assert rc == 0, err
    assert "extra" not in protocol.parse(out)  # the lock is what gets installed
    assert "warning: requirements.lock was written from another requirements.txt; run python3 bootstrap/lock.py" in err


@needs_uv
def test_lock_py_writes_a_hashed_lock_the_bootstrap_installs(tmp_path, wheeldir):
    repo = make_repo(tmp_path / "repo", wheeldir)
    write(os.path.join(repo, "requirements.txt"), "# why each is here\nwsw_dummy>=1.0\nwsw_extra==1.0  # a comment\n")
    os.unlink(os.path.join(repo, "requirements.lock"))
    env = boot_env(tmp_path, wheeldir, uv=True)
    lock_py = [sys.executable, os.path.join(repo, "bootstrap", "lock.py")]
    proc = subprocess.run(lock_py, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    with open(os.path.join(repo, "requirements.lock")) as f:
        lock = f.read()
    assert "# input sha256 %s  requirements.txt\n" % sha256_file(os.path.join(repo, "requirements.txt")) in lock
    for name in ("wsw_dummy", "wsw_extra"):
        digest = sha256_file(os.path.join(str(wheeldir), "%s-1.0-py3-none-any.whl" % name))
        assert "--hash=sha256:%s" % digest in lock
    # Where the files came from stays on this machine.
    assert str(wheeldir) not in lock and "://" not in lock
    assert not [line for line in lock.splitlines() if line.startswith("-")]
    assert not [n for n in os.listdir(repo) if n.startswith(".requirements.lock")]  # no temp file left
    assert subprocess.run(lock_py + ["--check"], env=env, capture_output=True, timeout=60).returncode == 0
    rc, out, err = boot(repo, ["search", "x"], env)
    assert rc == 0 and protocol.parse(out)["extra"] == "extra-ok", err
    assert "warning" not in err
    # An edited requirements.txt makes the lock stale until lock.py runs again.
    write(os.path.join(repo, "requirements.txt"), "wsw_dummy>=1.0\n")
    proc = subprocess.run(lock_py + ["--check"], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "requirements.lock was written from another requirements.txt" in proc.stderr


@needs_uv
def test_lock_wait_is_bounded(tmp_path, wheeldir):
    import fcntl

    repo = make_repo(tmp_path / "repo", wheeldir)
    venv = os.path.join(repo, ".venv")
    env = boot_env(tmp_path, wheeldir, uv=True, WEBSEARCH_WORKER_LOCK_WAIT="0.5")
    fd = os.open(venv + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)  # someone else is "installing"
    try:
        rc, out, err = boot(repo, ["search", "x"], env)
    finally:
        os.close(fd)
    assert rc == 1
    e = protocol.parse(out)["error"]
    assert e["code"] == "bootstrap_failed" and "waiting for another call" in e["message"]
    assert "another call is installing" in err
    assert not os.path.exists(venv)  # the waiter touched nothing


def test_unwritable_venv_location_is_a_bootstrap_failed_block(tmp_path):
    """A venv whose parent cannot exist: one clear block, no traceback."""
    import subprocess
    import sys as _sys

    proc = subprocess.run(
        [_sys.executable, os.path.join(ROOT, "bootstrap", "run.py"), "--venv", "/dev/null/x", "search", "q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert protocol.parse(proc.stdout)["error"]["code"] == "bootstrap_failed"


def _children(pid):
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(name))
    return out


def _alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux only")
def test_sigkilled_bootstrap_takes_its_installer_with_it(tmp_path, wheeldir):
    """SIGKILL cannot be handled, so the installer must die by itself (PR_SET_PDEATHSIG) and the next call
    must not build the venv under a live installer."""
    repo = make_repo(tmp_path / "repo", wheeldir)
    env = boot_env(tmp_path, wheeldir)  # pip path: `python -m venv` + ensurepip take seconds
    proc = _start_install(repo, env)
    try:
        deadline = time.monotonic() + 10
        children = []
        while not children and time.monotonic() < deadline:
            children = _children(proc.pid)
            time.sleep(0.02)
        assert children, "no installer process seen"
        proc.kill()
        proc.wait(10)
        deadline = time.monotonic() + 5
        while any(_alive(c) for c in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(c) for c in children), "the installer outlived its SIGKILLed parent"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    rc, out, err = boot(repo, ["search", "y"], env)
    assert rc == 0 and protocol.parse(out)["argv"] == ["search", "y"], err


def test_bad_install_settings_and_venv_file_are_blocks_not_tracebacks(tmp_path, wheeldir):
    repo = make_repo(tmp_path / "repo", wheeldir)
    for name, value in (
        ("WEBSEARCH_WORKER_LOCK_WAIT", "abc"),
        ("WEBSEARCH_WORKER_INSTALL_ATTEMPTS", "\u00b2"),
        ("WEBSEARCH_WORKER_INSTALL_ATTEMPTS", "9" * 400),
        ("WEBSEARCH_WORKER_LOCK_WAIT", "inf"),
    ):
        env = boot_env(tmp_path, wheeldir, **{name: value})
        rc, out, err = boot(repo, ["search", "x"], env)
        assert rc == 1 and "Traceback" not in err, err
        e = protocol.parse(out)["error"]
        assert e["code"] == "bootstrap_failed" and name in e["message"] and e["retryable"] is False
    venv_file = tmp_path / "venv-file"
    venv_file.write_text("")
    rc, out, err = boot(repo, ["--venv", str(venv_file), "search", "x"], boot_env(tmp_path, wheeldir))
    assert rc == 2 and "Traceback" not in err
    assert protocol.parse(out)["error"]["code"] == "usage"


# A worker that keeps the real one's start-up contract (worker/__main__.py, worker/runtime.py):
# handlers first, then it unblocks what the bootstrap held, and a signal becomes a cancelled block.
SIGNAL_AWARE_MAIN = """\
import _signal, sys, time
got = []
for s in (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP):
    _signal.signal(s, lambda n, f: got.append(n))
_signal.pthread_sigmask(_signal.SIG_UNBLOCK, (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP))
end = time.monotonic() + 30  # past the test's 10 s watch for the held mask: a late signal still lands here
while not got and time.monotonic() < end:
    time.sleep(0.005)
if got:
    sys.stdout.write('SEARCH_ERROR\\n{"ok": false, "v": 1, "error": {"code": "cancelled", "message": "m", '
                     '"retryable": false}}\\nSEARCH_DONE\\n')
    sys.exit(130)
sys.stdout.write('SEARCH_OK\\n{"ok": true, "v": 1}\\nSEARCH_DONE\\n')
"""


def _signals_held(pid):
    """True once the process has run the bootstrap's first instruction (it blocks the three signals)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("SigBlk:"):
                    return int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)) != 0
    except OSError:
        return None
    return False


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the signal mask from /proc")
def test_a_signal_in_the_first_milliseconds_is_a_cancelled_block_with_and_without_venv(tmp_path, wheeldir):
    """From the bootstrap's first instruction on, SIGTERM/SIGINT/SIGHUP give exit 130 and one
    cancelled block, on the fast path and through --venv DIR (the slow path's checks, then exec)."""
    repo = make_repo(tmp_path / "repo", wheeldir)
    write(os.path.join(repo, "worker", "__main__.py"), SIGNAL_AWARE_MAIN)
    venv = str(tmp_path / "v")
    env = boot_env(tmp_path, wheeldir, uv=UV is not None)
    rc, out, err = boot(repo, ["--venv", venv, "search", "warm"], env)
    assert rc == 0 and protocol.parse(out)["ok"], err
    outcomes = []
    for args in (["--venv", venv, "search", "q"], ["search", "q"]):
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            for delay in (0, 0.001, 0.004, 0.015, 0.04):
                proc = subprocess.Popen(
                    [sys.executable, os.path.join(repo, "bootstrap", "run.py")] + args,
                    env=dict(env, WEBSEARCH_WORKER_VENV=venv),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
                deadline = time.monotonic() + 10
                while not _signals_held(proc.pid) and time.monotonic() < deadline:
                    pass
                time.sleep(delay)
                proc.send_signal(sig)
                out, err = proc.communicate(timeout=30)
                payload = protocol.parse(out.decode("ascii")) if out else None
                outcomes.append((args[0], sig.name, delay, proc.returncode, payload and payload["ok"]))
                assert proc.returncode == 130, (outcomes[-1], err.decode(errors="replace")[-1000:])
                assert payload["error"]["code"] == "cancelled", out
    assert len(outcomes) == 30


def test_an_install_cut_short_resumes_with_what_it_had_downloaded(tmp_path):
    """pip's downloads are kept beside the venv: the next try fetches only the files still missing,
    and completes faster than an install from nothing.  Each run has a cache home of its own, so
    the user's pip cache cannot be what resumes."""
    from fakes.index_server import SimpleIndex

    wheels = tmp_path / "index"
    wheels.mkdir()
    names = ["wsw_dummy"] + ["wsw_part%d" % i for i in range(5)]  # the stand-in worker imports wsw_dummy
    for name in names:
        build_wheel(wheels, name, "1.0", name)
    if bundled_pip():
        shutil.copy(bundled_pip(), str(wheels))
    repo = make_repo(tmp_path / "repo", wheels, "".join("%s==1.0\n" % n for n in names))
    index = SimpleIndex(wheels, delay=4.0).start()  # the files' time outweighs a loaded machine's noise
    env = boot_env(tmp_path, wheels)  # the pip path: uv keeps its own cache
    for key in ("PIP_NO_INDEX", "PIP_FIND_LINKS"):
        env.pop(key)
    # pip caches only what an https or trusted host sends: 127.0.0.1 stands in for the https index
    env.update({"PIP_INDEX_URL": index.url, "PIP_TRUSTED_HOST": "127.0.0.1", "WEBSEARCH_WORKER_INSTALL_ATTEMPTS": "1"})

    def fresh_cache_home(name):
        return dict(env, XDG_CACHE_HOME=str(tmp_path / name), HOME=str(tmp_path / name))

    run_py = os.path.join(repo, "bootstrap", "run.py")

    def ours(served):
        return [n for n in served if n.startswith("wsw_")]

    try:
        started = time.monotonic()
        rc, out, err = boot(repo, ["--venv", str(tmp_path / "whole"), "search", "x"], fresh_cache_home("h1"))
        from_nothing = time.monotonic() - started
        assert rc == 0, err
        assert len(ours(index.served)) == 6
        assert not os.path.exists(str(tmp_path / "whole") + ".downloads")  # removed once installed

        del index.served[:]
        venv = str(tmp_path / "cut")
        proc = subprocess.Popen(
            [sys.executable, run_py, "--venv", venv, "search", "x"],
            env=fresh_cache_home("h2"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 120
        while len(ours(index.served)) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)  # while the 4th file is on its way
        assert proc.wait(60) == 130
        fetched_before = set(ours(index.served))

        del index.served[:]
        started = time.monotonic()
        rc, out, err = boot(repo, ["--venv", venv, "search", "x"], fresh_cache_home("h3"))
        resumed = time.monotonic() - started
        assert rc == 0 and protocol.parse(out)["ok"], err
    finally:
        index.close()
    fetched_again = set(ours(index.served))
    everything = {n + "-1.0-py3-none-any.whl" for n in names}
    assert len(fetched_before) >= 4 and len(fetched_again) <= 3, (fetched_before, fetched_again)
    assert fetched_again | fetched_before == everything
    assert not os.path.exists(venv + ".downloads")
    assert resumed < from_nothing, (resumed, from_nothing)
    sys.stderr.write("install from nothing %.1f s, resumed %.1f s\n" % (from_nothing, resumed))
