#!/usr/bin/env python3
"""Self-installing entry point of websearch-worker.  Standard library only, Python >= 3.9.

    python3 bootstrap/run.py search "query" [options]
    python3 bootstrap/run.py fetch URL [URL...] [options]
    python3 bootstrap/run.py mcp [--allow-private] [--config PATH] [--venv DIR]   (MCP server, hosts/mcp)

First call: create the worker's venv, install requirements.lock into it (every
file checked against its hash; bootstrap/lock.py writes the lock from
requirements.txt), write the ready stamp (last), then hand over.  Later calls:
compare the stamp with requirements.txt and the lock, and ``execv`` the venv's
interpreter: nothing else.

Bootstrap-only flags (before the command):
    --venv DIR      venv location (also $WEBSEARCH_WORKER_VENV; default <repo>/.venv)
    --check         exit 0 if the venv is ready, 1 if not; prints the reason
    --python-path   print the ready venv's interpreter path (installing first if needed)
    --reinstall     rebuild the venv from scratch, then run the command if one is given
"""

from __future__ import annotations

import _signal  # the C module: no enum import on the fast path

SIGNALS = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP)
if __name__ == "__main__":
    # Before anything else: hold SIGTERM/SIGINT/SIGHUP.  The mask survives execv, and the
    # worker unblocks them once its handlers are in (worker/runtime.py), so a cancel that
    # arrives while either interpreter starts gets a cancelled block instead of a silent
    # death.  The slow path delivers them to on_signal only while it installs (main()).
    _signal.pthread_sigmask(_signal.SIG_BLOCK, SIGNALS)

import os  # noqa: E402
import sys  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    import subprocess
    from types import FrameType
    from typing import Any, Callable, NoReturn

BOOTSTRAP_VERSION = "1"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAMP_NAME = "websearch-worker-ready.json"
# A byte-for-byte copy of the lock the venv was installed from, written just
# before the stamp: comparing it costs the fast path far less than hashing or
# hex-encoding a lock of some 100 KB would.
INSTALLED_LOCK = "websearch-worker-ready.lock"
ENV_VENV = "WEBSEARCH_WORKER_VENV"
FLAGS = ("--venv", "--check", "--python-path", "--reinstall")


def number(text: object, lo: float | None = None, hi: float | None = None, integer: bool = False) -> float:
    """A twin of worker.numbers.parse (this file must run without the worker package):
    ASCII digits, finite, within [lo, hi]; ValueError otherwise.  tests/test_hostile.py
    checks that the two agree."""
    s = text.strip() if isinstance(text, str) else ""
    body = s[1:] if s[:1] in ("+", "-") else s
    mantissa, e, exponent = body.lower().partition("e")
    digits = exponent[1:] if exponent[:1] in ("+", "-") else exponent
    whole, dot, frac = mantissa.partition(".")
    ascii_digits = set("0123456789")
    if (
        not s
        or len(s) > 32
        or (e and (integer or not digits or not set(digits) <= ascii_digits))
        or (integer and dot)
        or not (whole or frac)
        or not set(whole + frac) <= ascii_digits
    ):
        raise ValueError("expected a %snumber, got %r" % ("whole " if integer else "", s[:40]))
    value = int(s) if integer else float(s)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError("expected a finite number")
    if lo is not None and value < lo:
        raise ValueError("must be at least %s" % lo)
    if hi is not None and value > hi:
        raise ValueError("must be at most %s" % hi)
    return value


def env_number(
    name: str, default: float, lo: float | None = None, hi: float | None = None, integer: bool = False
) -> float:
    """An environment setting as a number; a SettingError naming it when it is not one."""
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return number(raw, lo, hi, integer)
    except ValueError as exc:
        raise SettingError("%s=%s: %s" % (name, raw[:40], exc)) from None


def venv_python(venv: str) -> str:
    return os.path.join(venv, "bin", "python")


REQUIREMENTS = os.path.join(ROOT, "requirements.txt")
LOCK = os.path.join(ROOT, "requirements.lock")
LOCK_INPUT_PREFIX = "# input sha256 "  # a lock's header line per file it was written from (bootstrap/lock.py)


def read_requirements(path: str = REQUIREMENTS) -> str:
    with open(path, "rb") as f:
        return f.read().decode("utf-8")


def read_inputs(requirements: str = REQUIREMENTS, lock: str = LOCK) -> tuple[str, str]:
    """(requirements text, lock text): what a ready venv was installed from."""
    return read_requirements(requirements), read_requirements(lock)


def stamp_key(requirements: str | bytes) -> str:
    """What the stamp must record for these requirements, as hex: comparable without json.

    Covers the bootstrap version, the checkout's location and the exact
    requirements text.  Hex has no characters JSON escapes, so the fast path can
    look for it in the raw stamp bytes.
    """
    if isinstance(requirements, str):
        requirements = requirements.encode("utf-8")
    return (BOOTSTRAP_VERSION.encode() + b"\0" + os.fsencode(ROOT) + b"\0" + requirements).hex()


def fast_ready(venv: str, requirements_bytes: bytes, lock_bytes: bytes) -> bool:
    """The fast path's readiness check, without importing json.

    json (and the re it pulls in) costs more than the rest of the fast path;
    a substring test of the raw stamp is enough because the key is hex.
    Anything unexpected is "not ready", and the slow path decides properly.
    """
    with open(os.path.join(venv, INSTALLED_LOCK), "rb") as f:
        if f.read() != lock_bytes:
            return False
    with open(os.path.join(venv, STAMP_NAME), "rb") as f:
        raw = f.read()
    needle = b'"key": "' + stamp_key(requirements_bytes).encode() + b'"'
    return needle in raw and os.access(venv_python(venv), os.X_OK)


def stamp_problem(venv: str, inputs: tuple[str, str]) -> str | None:
    """None if the venv is ready for these inputs (see read_inputs), else why not (one line)."""
    requirements, lock = inputs
    try:
        with open(os.path.join(venv, STAMP_NAME), "rb") as f:
            raw = f.read().decode("utf-8")
    except OSError:
        return "not installed"
    import json

    try:
        stamp = json.loads(raw)
    except ValueError:
        return "ready stamp unreadable"
    if stamp.get("bootstrap") != BOOTSTRAP_VERSION:
        return "bootstrap version changed"
    if stamp.get("requirements") != requirements:
        return "requirements.txt changed"
    if stamp.get("root") != ROOT:
        return "project moved"
    if stamp.get("key") != stamp_key(requirements):
        return "ready stamp outdated"
    try:
        with open(os.path.join(venv, INSTALLED_LOCK), "rb") as f:
            installed = f.read()
    except OSError:
        installed = None
    if installed != lock.encode("utf-8"):
        return "requirements.lock changed"
    if not os.access(venv_python(venv), os.X_OK):
        return "venv interpreter missing"
    return None


def exec_worker(venv: str, argv: list[str]) -> NoReturn:
    python = venv_python(venv)
    env = os.environ
    env.setdefault("WEBSEARCH_WORKER_PROG", "bootstrap/run.py")
    # -I: the user's cwd (maybe holding its own "worker" dir) and PYTHON* variables
    # must not change which code runs; the worker is found through a .pth file.
    # `mcp` is the MCP host's own entry (hosts/mcp): the worker never imports its hosts.
    entry = ["-m", "hosts.mcp"] + argv[1:] if argv[:1] == ["mcp"] else ["-m", "worker"] + argv
    os.execv(python, [python, "-I"] + entry)


# ---------------------------------------------------------------------------
# Slow path: install.  Everything below runs only when the venv is not ready.


def log(msg: str) -> None:
    sys.stderr.write("websearch-worker: %s\n" % msg)
    sys.stderr.flush()


# False for `mcp`: its stdout is the JSON-RPC channel, so a block would break the client's
# parser; the error goes to stderr, which MCP clients keep as the server's log.
_STDOUT_IS_PROTOCOL = [True]
_BLOCK_WRITTEN: list[bool] = []  # one block per call: a cancel after an error block goes to stderr


def emit_error(code: str, message: str, hint: str, detail: str | None = None, retryable: bool = True) -> None:
    """Write the one block (never raises: the caller exits right after)."""
    try:
        _emit_error(code, message, hint, detail, retryable)
    except Exception:
        pass


def _emit_error(code: str, message: str, hint: str, detail: str | None = None, retryable: bool = True) -> None:
    """A SEARCH_ERROR block, built with the same escaping rules as worker/protocol.py."""
    import json

    error = {"code": code, "message": message, "hint": hint, "retryable": retryable}
    if detail:
        error["detail"] = detail
    line = json.dumps({"ok": False, "v": 1, "error": error}, ensure_ascii=True, separators=(",", ":"))
    line = line.replace("SEARCH_", "SEARCH\\u005f")
    out = sys.stdout if _STDOUT_IS_PROTOCOL[0] and not _BLOCK_WRITTEN else sys.stderr
    _BLOCK_WRITTEN.append(True)
    out.write("SEARCH_ERROR\n%s\nSEARCH_DONE\n" % line)
    out.flush()


class InstallError(Exception):
    retryable = True

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output


class SettingError(InstallError):
    """A bad setting (environment variable, --venv): running again will not help."""

    retryable = False


_CHILD: list[subprocess.Popen[bytes]] = []
_LOCK_FD: list[int] = []  # the install lock, while held: installers inherit it (see run)


def _die_with_parent() -> Callable[[], None] | None:
    """A preexec_fn: on Linux the installer gets SIGKILL when this process dies, however it dies.

    A SIGKILLed bootstrap would otherwise leave pip or uv writing into a venv
    that the next call, finding no stamp, deletes and rebuilds under it.  The
    prctl function is looked up before the fork; elsewhere this does nothing,
    and the inherited install lock (see run) keeps the next call waiting for
    the orphan instead.
    """
    prctl = _PRCTL[0] if _PRCTL else None
    if prctl is None:
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return preexec


_PRCTL: list[Callable[..., int] | None] = []


def _load_prctl() -> None:
    if _PRCTL or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        _PRCTL.append(ctypes.CDLL(None, use_errno=True).prctl)
    except (ImportError, OSError, AttributeError):
        _PRCTL.append(None)


def run(cmd: list[str], env: dict[str, str] | None = None) -> str:
    import subprocess

    _load_prctl()
    # Its own process group, so a cancelled install can end the installer's
    # children too (compileall -j0 and pip build steps fork).  The install lock
    # goes with it (pass_fds): while any installer lives, the lock is held, so
    # the next call never rebuilds the venv under a running install.
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        pass_fds=tuple(_LOCK_FD),
        preexec_fn=_die_with_parent(),
    )
    _CHILD[:] = [proc]
    try:
        raw, _ = proc.communicate()
    finally:
        _CHILD[:] = []
    out = raw.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        raise InstallError(
            "%s exited with %d" % (os.path.basename(cmd[0]) + " " + " ".join(cmd[1:3]), proc.returncode), out
        )
    return out


def find_uv() -> str | None:
    if os.environ.get("WEBSEARCH_WORKER_NO_UV"):
        return None
    import shutil

    return shutil.which("uv")


def site_packages(python: str) -> str:
    out = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    return out.strip().splitlines()[-1]


# What a venv (or one whose creation was cut short) holds at its top level.
VENV_ENTRIES = {"bin", "lib", "lib64", "include", "share", "pyvenv.cfg", ".gitignore", "CACHEDIR.TAG", ".lock"}


def remove_venv(venv: str) -> None:
    """Delete a venv we are about to rebuild; never a directory that is not one."""
    import shutil

    if not os.path.lexists(venv):
        return
    if os.path.islink(venv) or not os.path.isdir(venv):
        raise InstallError("refusing to replace %s: it is not a directory" % venv)
    strange = [n for n in os.listdir(venv) if n not in VENV_ENTRIES and not n.startswith((STAMP_NAME, INSTALLED_LOCK))]
    if strange and not os.path.exists(os.path.join(venv, "pyvenv.cfg")):
        # --venv pointed at an existing directory of the user's: do not delete it.
        raise InstallError("refusing to replace %s: it is not empty and not a venv (no pyvenv.cfg)" % venv)
    shutil.rmtree(venv)


def bundled_pip() -> str | None:
    """The pip wheel this Python's ensurepip carries, or None (some distributions strip it)."""
    import glob

    wheels = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "ensurepip", "_bundled", "pip-*.whl")))
    return wheels[-1] if wheels else None


def install(venv: str, lock_file: str, fresh: bool) -> None:
    """Build or update the venv; the caller holds the install lock."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    python = venv_python(venv)
    uv = find_uv()
    wheel = None if uv else bundled_pip()
    if fresh or not os.access(python, os.X_OK):
        remove_venv(venv)
        log("creating venv at %s%s" % (venv, " with uv" if uv else ""))
        if uv:
            run([uv, "venv", "--quiet", "--python", sys.executable, venv], env)
        elif wheel:
            # ensurepip would install its old pip (and compile it) only for the
            # upgrade below to replace it: seconds of a first install.
            run([sys.executable, "-m", "venv", "--without-pip", venv], env)
        else:
            run([sys.executable, "-m", "venv", venv], env)
    log("installing %s%s" % (os.path.basename(lock_file), " with uv" if uv else " with pip"))
    if uv:
        run(
            [
                uv,
                "pip",
                "install",
                "--quiet",
                "--compile-bytecode",
                "--require-hashes",
                "--python",
                python,
                "-r",
                lock_file,
            ],
            env,
        )
    else:
        quiet = ["install", "--quiet", "--disable-pip-version-check"]
        if os.access(os.path.join(venv, "bin", "pip"), os.X_OK):
            pip = [python, "-m", "pip"]
        elif wheel:
            pip = [python, os.path.join(wheel, "pip")]  # pip runs from its own wheel, as ensurepip runs it
        else:
            run([python, "-m", "ensurepip"], env)
            pip = [python, "-m", "pip"]
        # The bundled pip (23.2.1 on Python 3.11) trips over extras that a locked
        # install hands it (lxml[html_clean]) and is slower: a current pip first.
        kept = ["--cache-dir", downloads_path(venv)]
        run(pip + quiet + kept + ["--no-compile", "--upgrade", "pip"], env)
        # pip's cache in a folder beside the venv, which outlives a cut-short install: the
        # next try takes every file downloaded so far from it and fetches only the rest,
        # whatever the user's own cache settings.  pip compiles one file at a time;
        # compileall below uses every core.  The lock already holds every dependency
        # (bootstrap/lock.py resolves them for all platforms; tests/test_lock.py checks),
        # so pip's resolver is skipped.
        run(
            [python, "-m", "pip"] + quiet + kept + ["--no-compile", "--no-deps", "--require-hashes", "-r", lock_file],
            env,
        )
    purelib = site_packages(python)
    # The worker runs from this checkout: a .pth file puts it on the venv's path.
    with open(os.path.join(purelib, "websearch_worker.pth"), "w") as f:
        f.write(ROOT + "\n")
    # Byte-compile now: hosts that set PYTHONDONTWRITEBYTECODE would otherwise
    # pay for compiling on every call.  uv --compile-bytecode did site-packages;
    # pip itself is left out (the worker never imports it; pip's next run compiles
    # what it uses).
    log("compiling bytecode")
    if not uv:
        run([python, "-m", "compileall", "-q", "-j", "0", "-x", r"[/\\]pip[/\\]", purelib], env)
    try:
        run([python, "-m", "compileall", "-q", os.path.join(ROOT, "worker")], env)
    except InstallError as exc:  # a read-only checkout still works, just slower
        log("could not byte-compile the worker package (%s); continuing" % exc)


def downloads_path(venv: str) -> str:
    """pip's cache for this venv's install, beside it until the install completes (a rebuilt venv keeps it)."""
    return os.path.abspath(venv).rstrip("/") + ".downloads"


def _write_whole(path: str, data: bytes) -> None:
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)  # atomic: readers see the old file or the whole new one


def write_stamp(venv: str, inputs: tuple[str, str]) -> None:
    """Mark the venv ready for these inputs (see read_inputs): the lock's copy, then the stamp."""
    import hashlib
    import json
    import platform

    requirements, lock = inputs
    _write_whole(os.path.join(venv, INSTALLED_LOCK), lock.encode("utf-8"))
    stamp = {
        "key": stamp_key(requirements),
        "bootstrap": BOOTSTRAP_VERSION,
        "requirements": requirements,
        "lock_sha256": hashlib.sha256(lock.encode("utf-8")).hexdigest(),
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "root": ROOT,
    }
    # fast_ready looks for '"key": "<hex>"'
    _write_whole(os.path.join(venv, STAMP_NAME), json.dumps(stamp, separators=(", ", ": ")).encode("utf-8"))


def remove_stamp(venv: str) -> None:
    try:
        os.unlink(os.path.join(venv, STAMP_NAME))
    except (FileNotFoundError, NotADirectoryError):
        pass


def lock_path(venv: str) -> str:
    return os.path.abspath(venv).rstrip("/") + ".lock"


def acquire_lock(venv: str, wait_seconds: float) -> int | None:
    """An exclusive flock beside the venv; None if it was not had in time."""
    import fcntl
    import time

    os.makedirs(os.path.dirname(lock_path(venv)) or ".", exist_ok=True)
    fd = os.open(lock_path(venv), os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + wait_seconds
    announced = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                return None
            if not announced:
                log("another call is installing the venv; waiting")
                announced = True
            time.sleep(0.2)


def lock_inputs(lock: str) -> dict[str, str]:
    """{path relative to the checkout: sha256 hex} of the files a lock's header says it was written from."""
    out = {}
    for line in lock.splitlines():
        if line.startswith(LOCK_INPUT_PREFIX):
            digest, _, path = line[len(LOCK_INPUT_PREFIX) :].partition("  ")
            out[path] = digest
    return out


def file_sha256(path: str) -> str | None:
    import hashlib

    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def stale_lock_inputs(lock: str) -> list[str]:
    """The files a lock's header names whose content changed since the lock was written."""
    return [path for path, digest in lock_inputs(lock).items() if file_sha256(os.path.join(ROOT, path)) != digest]


def ensure_ready(
    venv: str, reinstall: bool = False, lock_file: str = LOCK, inputs: tuple[str, str] | None = None
) -> None:
    """Make the venv ready (installing under the lock); raise InstallError on final failure.

    ``inputs`` is what the stamp records (default: read_inputs() for requirements.txt and lock_file).
    """
    import time

    if inputs is None:
        inputs = read_inputs(lock=lock_file)
    wait = env_number("WEBSEARCH_WORKER_LOCK_WAIT", 600.0, lo=0, hi=24 * 3600)
    attempts = int(env_number("WEBSEARCH_WORKER_INSTALL_ATTEMPTS", 3, lo=1, hi=10, integer=True))
    backoff = env_number("WEBSEARCH_WORKER_INSTALL_BACKOFF", 2.0, lo=0, hi=60)
    try:
        fd = acquire_lock(venv, wait)
    except OSError as exc:  # e.g. the venv's parent cannot be created or written
        raise InstallError("cannot create the install lock beside %s: %s" % (venv, exc.strerror or exc)) from exc
    if fd is None:
        raise InstallError("timed out after %gs waiting for another call's install to finish" % wait)
    _LOCK_FD[:] = [fd]
    try:
        problem = stamp_problem(venv, inputs)
        if problem is None and not reinstall:
            return  # another call finished the install while we waited
        # Only a venv that was once complete is updated in place; anything else
        # (no stamp: never finished, or an install was cut short) is rebuilt.
        incremental = not reinstall and problem in (
            "requirements.txt changed",
            "requirements.lock changed",
            "ready stamp outdated",
        )
        log(
            "%sinstalling dependencies into %s (%s)"
            % (
                "first run: " if problem == "not installed" else "",
                venv,
                "reinstall requested" if reinstall else problem,
            )
        )
        stale = stale_lock_inputs(inputs[1])
        if stale:
            # Installed all the same: the lock is a whole, hash-checked set, and
            # tests/test_lock.py fails until it is written again.
            log(
                "warning: %s was written from another %s; run python3 bootstrap/lock.py"
                % (os.path.basename(lock_file), ", ".join(stale))
            )
        started = time.monotonic()
        for attempt in range(1, attempts + 1):
            remove_stamp(venv)  # from here until the stamp is rewritten, the venv is not ready
            try:
                # A venv that failed mid-install is rebuilt from scratch on retry.
                install(venv, lock_file, fresh=not incremental or attempt > 1)
                write_stamp(venv, inputs)
                log("installed in %.1fs" % (time.monotonic() - started))
                import shutil

                shutil.rmtree(downloads_path(venv), ignore_errors=True)  # installed: nothing left to resume
                return
            except (InstallError, OSError) as exc:
                last = exc
                if attempt < attempts:
                    delay = backoff * (2 ** (attempt - 1))
                    log("install failed (%s); retrying in %gs" % (exc, delay))
                    time.sleep(delay)
        raise last if isinstance(last, InstallError) else InstallError(str(last))
    finally:
        _LOCK_FD[:] = []
        os.close(fd)  # releases the flock (once no installer holds it either)


def parse_flags(argv: list[str]) -> tuple[dict[str, Any], list[str]]:
    opts: dict[str, Any] = {"venv": os.environ.get(ENV_VENV) or os.path.join(ROOT, ".venv")}
    rest = list(argv)
    while rest and rest[0] in FLAGS or (rest and rest[0].startswith("--venv=")):
        flag = rest.pop(0)
        if flag.startswith("--venv="):
            opts["venv"] = flag.split("=", 1)[1]
        elif flag == "--venv":
            if not rest:
                emit_error("usage", "--venv needs a directory", "bootstrap/run.py --venv DIR search ...")
                sys.exit(2)
            opts["venv"] = rest.pop(0)
        else:
            opts[flag[2:].replace("-", "_")] = True
    opts["venv"] = os.path.abspath(os.path.expanduser(opts["venv"]))
    return opts, rest


def command_of(argv: list[str]) -> str | None:
    """The worker command after the bootstrap's flags, or --check / --python-path when one of those is given."""
    rest = list(argv)
    while rest:
        token = rest.pop(0)
        if token in ("--check", "--python-path"):
            return token
        if token == "--venv":
            rest = rest[1:]
        elif token not in FLAGS and not token.startswith("--venv="):
            return token
    return None


def mcp_venv_first(args: list[str]) -> list[str]:
    """``mcp ... --venv DIR``: the MCP server's --venv names the venv it runs from as well as its
    workers', so it becomes the bootstrap's own --venv (one venv, installed before the server starts)."""
    rest = list(args[1:])
    for i, token in enumerate(rest):
        if token == "--venv" and i + 1 < len(rest):
            return ["--venv", rest[i + 1], args[0]] + rest[:i] + rest[i + 2 :]
        if token.startswith("--venv="):
            return [token, args[0]] + rest[:i] + rest[i + 1 :]
    return list(args)


_INSTALLING: list[bool] = []
_ON_SIGNAL: list[Callable[[], None]] = []  # run first by on_signal (the MCP first run stops its server)


def on_signal(signum: int, frame: FrameType | None) -> NoReturn:
    """Cancelled (mid-install, or before the worker started): stop the installer, leave no stamp, exit 130."""
    import signal

    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    for hook in _ON_SIGNAL:
        try:
            hook()
        except Exception:
            pass
    for proc in _CHILD:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            proc.wait(5)
        except Exception:
            pass
    if _INSTALLING:
        emit_error(
            "cancelled",
            "cancelled during the first-run install",
            "run the command again to resume the install",
            retryable=False,
        )
    else:
        emit_error("cancelled", "cancelled before the worker started", "run the command again", retryable=False)
    os._exit(130)


def serve_first_run(venv: str, server_args: list[str], reinstall: bool) -> int:
    """`mcp` with no ready venv: hosts/mcp/firstrun.py answers the client while the venv installs."""
    sys.path.insert(0, ROOT)
    from hosts.mcp import firstrun, settings

    try:
        parsed = settings.Settings(server_args)
    except settings.HelpShown:
        return 0
    except settings.UsageError as exc:
        sys.stderr.write("websearch-worker mcp: %s\n%s" % (exc, settings.usage()))
        return 2
    rebuild = [reinstall]

    def install() -> None:
        _INSTALLING[:] = [True]
        try:
            ensure_ready(venv, reinstall=rebuild[0])
            rebuild[0] = False
        finally:
            _INSTALLING[:] = []

    log("first run: installing the worker into %s while the MCP server answers" % venv)
    server = [venv_python(venv), "-I", "-m", "hosts.mcp"] + server_args
    front = firstrun.FirstRun(server, install, parsed.config)
    _ON_SIGNAL.append(front.stop)
    deliver_signals(True)  # before any thread starts: threads inherit the mask
    code = front.serve()
    for proc in _CHILD:  # stdin closed mid-install: the installer goes too, and the next start resumes
        try:
            os.killpg(proc.pid, 9)
        except OSError:
            pass
    return code


def deliver_signals(deliver: bool) -> None:
    """Let held signals reach on_signal (while installing), or hold them again (before exec)."""
    _signal.pthread_sigmask(_signal.SIG_UNBLOCK if deliver else _signal.SIG_BLOCK, SIGNALS)


def main(argv: list[str]) -> int:
    for sig in SIGNALS:
        _signal.signal(sig, on_signal)
    # Signals stay held (see the top of this file) except while installing: one that
    # arrives before the exec is passed on, still pending, to the worker, which answers
    # it with a cancelled block; one that arrives when no exec follows is delivered below.
    # --python-path and --check answer on stdout too: hosts (hosts/pi) read a failed install's block there
    _STDOUT_IS_PROTOCOL[0] = command_of(argv) != "mcp"
    try:
        rc = _main(argv)  # returns only when no exec follows
    except SystemExit:
        deliver_signals(True)
        raise
    except BaseException as exc:  # a bug or an environment we did not foresee: still one block, no traceback
        emit_error(
            "bootstrap_failed",
            "bootstrap/run.py failed: %s: %s" % (type(exc).__name__, " ".join(str(exc).split())[:300]),
            "run again with --reinstall; if it persists, report it",
            retryable=False,
        )
        rc = 1
    deliver_signals(True)  # a cancel held until now ends the process with 130 (on_signal)
    return rc


def _main(argv: list[str]) -> int:
    opts, rest = parse_flags(argv)
    venv = opts["venv"]
    if os.path.lexists(venv) and not os.path.isdir(venv):
        emit_error(
            "usage",
            "--venv %s is not a directory" % venv,
            "name a directory for the worker's venv (it is created if missing): bootstrap/run.py --venv DIR search ...",
            retryable=False,
        )
        return 2
    if opts.get("check"):
        problem = stamp_problem(venv, read_inputs())
        sys.stdout.write("ready %s\n" % venv_python(venv) if problem is None else "not ready: %s\n" % problem)
        return 0 if problem is None else 1
    if rest[:1] == ["mcp"] and not opts.get("python_path"):
        if opts.get("reinstall") or stamp_problem(venv, read_inputs()) is not None:
            return serve_first_run(venv, rest[1:], bool(opts.get("reinstall")))
    try:
        if opts.get("reinstall") or stamp_problem(venv, read_inputs()) is not None:
            _INSTALLING[:] = [True]
            deliver_signals(True)
            ensure_ready(venv, reinstall=bool(opts.get("reinstall")))
            deliver_signals(False)
            _INSTALLING[:] = []
    except InstallError as exc:
        tail = "\n".join(exc.output.strip().splitlines()[-15:])
        if tail:
            sys.stderr.write(tail + "\n")
        emit_error(
            "bootstrap_failed",
            "could not install the worker's dependencies: %s" % exc,
            "fix or unset the environment variable named"
            if isinstance(exc, SettingError)
            else "check that the venv location is writable (--venv DIR) and the package index is reachable "
            "(pip/uv configuration), then run the command again; "
            "bootstrap/run.py --reinstall rebuilds the venv",
            detail=tail[-2000:] or None,
            retryable=exc.retryable,
        )
        return 1
    if opts.get("python_path"):
        sys.stdout.write(venv_python(venv) + "\n")
        sys.stdout.flush()
        return 0
    if not rest and opts.get("reinstall"):
        return 0
    exec_worker(venv, rest)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["mcp"]:
        args = mcp_venv_first(args)
    venv_dir = os.environ.get(ENV_VENV) or os.path.join(ROOT, ".venv")
    # Fast path: no bootstrap flags and a ready venv -> exec at once.
    if not (args and (args[0] in FLAGS or args[0].startswith("--venv="))):
        try:
            with open(REQUIREMENTS, "rb") as req, open(LOCK, "rb") as lock:
                if fast_ready(venv_dir, req.read(), lock.read()):
                    exec_worker(venv_dir, args)
        except OSError:
            pass  # fall through to the slow path, which checks properly and installs
    sys.exit(main(args))
