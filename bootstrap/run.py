#!/usr/bin/env python3
"""Self-installing entry point of websearch-worker.  Standard library only, Python >= 3.9.

    python3 bootstrap/run.py search "query" [options]
    python3 bootstrap/run.py fetch URL [URL...] [options]
    python3 bootstrap/run.py mcp [--allow-private] [--config PATH] [--venv DIR]   (MCP server, hosts/mcp)

First call: create the worker's venv, install requirements.txt into it, write
the ready stamp (last), then hand over.  Later calls: read the stamp, compare it
with requirements.txt, and ``execv`` the venv's interpreter: nothing else.

Bootstrap-only flags (before the command):
    --venv DIR      venv location (also $WEBSEARCH_WORKER_VENV; default <repo>/.venv)
    --check         exit 0 if the venv is ready, 1 if not; prints the reason
    --python-path   print the ready venv's interpreter path (installing first if needed)
    --reinstall     rebuild the venv from scratch, then run the command if one is given
"""

from __future__ import annotations

import _signal  # the C module: no enum import on the fast path
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    import subprocess
    from types import FrameType
    from typing import Any, Callable, NoReturn

BOOTSTRAP_VERSION = "1"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAMP_NAME = "websearch-worker-ready.json"
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


def read_requirements(path: str = REQUIREMENTS) -> str:
    with open(path, "rb") as f:
        return f.read().decode("utf-8")


def stamp_key(requirements: str | bytes) -> str:
    """What the stamp must record for these requirements, as hex: comparable without json.

    Covers the bootstrap version, the checkout's location and the exact
    requirements text.  Hex has no characters JSON escapes, so the fast path can
    look for it in the raw stamp bytes.
    """
    if isinstance(requirements, str):
        requirements = requirements.encode("utf-8")
    return (BOOTSTRAP_VERSION.encode() + b"\0" + os.fsencode(ROOT) + b"\0" + requirements).hex()


def fast_ready(venv: str, requirements_bytes: bytes) -> bool:
    """The fast path's readiness check, without importing json.

    json (and the re it pulls in) costs more than the rest of the fast path;
    a substring test of the raw stamp is enough because the key is hex.
    Anything unexpected is "not ready", and the slow path decides properly.
    """
    with open(os.path.join(venv, STAMP_NAME), "rb") as f:
        raw = f.read()
    needle = b'"key": "' + stamp_key(requirements_bytes).encode() + b'"'
    return needle in raw and os.access(venv_python(venv), os.X_OK)


def stamp_problem(venv: str, requirements: str) -> str | None:
    """None if the venv is ready for these requirements, else why not (one line)."""
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
    if not os.access(venv_python(venv), os.X_OK):
        return "venv interpreter missing"
    return None


def exec_worker(venv: str, argv: list[str]) -> NoReturn:
    python = venv_python(venv)
    env = os.environ
    env.setdefault("WEBSEARCH_WORKER_PROG", "bootstrap/run.py")
    # -I: the user's cwd (maybe holding its own "worker" dir) and PYTHON* variables
    # must not change which code runs; the worker is found through a .pth file.
    os.execv(python, [python, "-I", "-m", "worker"] + argv)


# ---------------------------------------------------------------------------
# Slow path: install.  Everything below runs only when the venv is not ready.


def log(msg: str) -> None:
    sys.stderr.write("websearch-worker: %s\n" % msg)
    sys.stderr.flush()


def emit_error(code: str, message: str, hint: str, detail: str | None = None, retryable: bool = True) -> None:
    """Write the one block (never raises: the caller exits right after)."""
    try:
        _emit_error(code, message, hint, detail, retryable)
    except Exception:
        pass


def _emit_error(code: str, message: str, hint: str, detail: str | None = None, retryable: bool = True) -> None:
    """A SEARCH_ERROR block, built with the same escaping rules as worker/protocol.py."""
    import json

    error: dict[str, Any] = {"code": code, "message": message, "hint": hint, "retryable": retryable}
    if detail:
        error["detail"] = detail
    line = json.dumps({"ok": False, "v": 1, "error": error}, ensure_ascii=True, separators=(",", ":"))
    line = line.replace("SEARCH_", "SEARCH\\u005f")
    sys.stdout.write("SEARCH_ERROR\n%s\nSEARCH_DONE\n" % line)
    sys.stdout.flush()


class InstallError(Exception):
    retryable = True

    def __init__(self, message: str, output: str = ""):
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
    strange = [n for n in os.listdir(venv) if n not in VENV_ENTRIES and not n.startswith(STAMP_NAME)]
    if strange and not os.path.exists(os.path.join(venv, "pyvenv.cfg")):
        # --venv pointed at an existing directory of the user's: do not delete it.
        raise InstallError("refusing to replace %s: it is not empty and not a venv (no pyvenv.cfg)" % venv)
    shutil.rmtree(venv)


def install(venv: str, req_file: str, fresh: bool) -> None:
    """Build or update the venv; the caller holds the install lock."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    python = venv_python(venv)
    uv = find_uv()
    if fresh or not os.access(python, os.X_OK):
        remove_venv(venv)
        log("creating venv at %s%s" % (venv, " with uv" if uv else ""))
        if uv:
            run([uv, "venv", "--quiet", "--python", sys.executable, venv], env)
        else:
            run([sys.executable, "-m", "venv", venv], env)
    log("installing %s%s" % (os.path.basename(req_file), " with uv" if uv else " with pip"))
    if uv:
        run([uv, "pip", "install", "--quiet", "--compile-bytecode", "--python", python, "-r", req_file], env)
    else:
        # The pip bundled by ensurepip (23.2.1 on Python 3.11) cannot resolve
        # trafilatura with readability-lxml; upgrade it first.
        run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--upgrade", "pip"], env)
        run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", req_file], env)
    purelib = site_packages(python)
    # The worker runs from this checkout: a .pth file puts it on the venv's path.
    with open(os.path.join(purelib, "websearch_worker.pth"), "w") as f:
        f.write(ROOT + "\n")
    # Byte-compile now: hosts that set PYTHONDONTWRITEBYTECODE would otherwise
    # pay for compiling on every call.  uv --compile-bytecode did site-packages.
    log("compiling bytecode")
    if not uv:
        run([python, "-m", "compileall", "-q", "-j", "0", purelib], env)
    try:
        run([python, "-m", "compileall", "-q", os.path.join(ROOT, "worker")], env)
    except InstallError as exc:  # a read-only checkout still works, just slower
        log("could not byte-compile the worker package (%s); continuing" % exc)


def write_stamp(venv: str, requirements: str) -> None:
    import json
    import platform

    stamp = {
        "key": stamp_key(requirements),
        "bootstrap": BOOTSTRAP_VERSION,
        "requirements": requirements,
        "python": platform.python_version(),
        "python_executable": sys.executable,
        "root": ROOT,
    }
    path = os.path.join(venv, STAMP_NAME)
    tmp = "%s.tmp-%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(stamp, f, separators=(", ", ": "))  # fast_ready looks for '"key": "<hex>"'
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)  # atomic: readers see no stamp or a whole one


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


def ensure_ready(
    venv: str, reinstall: bool = False, req_file: str = REQUIREMENTS, requirements: str | None = None
) -> None:
    """Make the venv ready (installing under the lock); raise InstallError on final failure.

    ``requirements`` is the text the stamp records (default: req_file's content).
    """
    import time

    if requirements is None:
        requirements = read_requirements(req_file)
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
        problem = stamp_problem(venv, requirements)
        if problem is None and not reinstall:
            return  # another call finished the install while we waited
        # Only a venv that was once complete is updated in place; anything else
        # (no stamp: never finished, or an install was cut short) is rebuilt.
        incremental = not reinstall and problem in ("requirements.txt changed", "ready stamp outdated")
        log(
            "%sinstalling dependencies into %s (%s)"
            % (
                "first run: " if problem == "not installed" else "",
                venv,
                "reinstall requested" if reinstall else problem,
            )
        )
        started = time.monotonic()
        for attempt in range(1, attempts + 1):
            remove_stamp(venv)  # from here until the stamp is rewritten, the venv is not ready
            try:
                # A venv that failed mid-install is rebuilt from scratch on retry.
                install(venv, req_file, fresh=not incremental or attempt > 1)
                write_stamp(venv, requirements)
                log("installed in %.1fs" % (time.monotonic() - started))
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


SIGNALS = (_signal.SIGTERM, _signal.SIGINT, _signal.SIGHUP)


def on_signal(signum: int, frame: FrameType | None) -> NoReturn:
    """Cancelled mid-install: stop the installer, leave no stamp, exit 130."""
    import signal

    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    for proc in _CHILD:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            proc.wait(5)
        except Exception:
            pass
    emit_error(
        "cancelled",
        "cancelled during the first-run install",
        "run the command again to resume the install",
        retryable=False,
    )
    os._exit(130)


def main(argv: list[str]) -> int:
    for sig in SIGNALS:
        _signal.signal(sig, on_signal)
    # Signals held since start-up (see the bottom of this file) are delivered now, to on_signal.
    _signal.pthread_sigmask(_signal.SIG_UNBLOCK, SIGNALS)
    try:
        return _main(argv)
    except SystemExit:
        raise
    except BaseException as exc:  # a bug or an environment we did not foresee: still one block, no traceback
        emit_error(
            "bootstrap_failed",
            "bootstrap/run.py failed: %s: %s" % (type(exc).__name__, " ".join(str(exc).split())[:300]),
            "run again with --reinstall; if it persists, report it",
            retryable=False,
        )
        return 1


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
        problem = stamp_problem(venv, read_requirements())
        sys.stdout.write("ready %s\n" % venv_python(venv) if problem is None else "not ready: %s\n" % problem)
        return 0 if problem is None else 1
    try:
        if opts.get("reinstall") or stamp_problem(venv, read_requirements()) is not None:
            ensure_ready(venv, reinstall=bool(opts.get("reinstall")))
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
        return 0
    if not rest and opts.get("reinstall"):
        return 0
    exec_worker(venv, rest)


if __name__ == "__main__":
    # Hold SIGTERM/SIGINT/SIGHUP from here on: the mask survives execv, and the
    # worker unblocks them once its handlers are in (worker/runtime.py), so a
    # cancel that arrives while either interpreter starts gets a cancelled
    # block instead of a silent death.  The slow path unblocks in main().
    _signal.pthread_sigmask(_signal.SIG_BLOCK, SIGNALS)
    args = sys.argv[1:]
    if args[:1] == ["mcp"]:
        args = mcp_venv_first(args)
    venv_dir = os.environ.get(ENV_VENV) or os.path.join(ROOT, ".venv")
    # Fast path: no bootstrap flags and a ready venv -> exec at once.
    if not (args and (args[0] in FLAGS or args[0].startswith("--venv="))):
        try:
            with open(REQUIREMENTS, "rb") as req:
                if fast_ready(venv_dir, req.read()):
                    exec_worker(venv_dir, args)
        except OSError:
            pass  # fall through to the slow path, which checks properly and installs
    sys.exit(main(args))
