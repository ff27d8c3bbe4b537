#!/usr/bin/env python3
"""Write the lock files the bootstrap installs from, with hashes:  python3 bootstrap/lock.py [options]

    requirements.txt       -> requirements.lock       (bootstrap/run.py, the worker's venv)
    requirements-dev.txt   -> requirements-dev.lock   (bootstrap/test.py, .venv-dev)

Options:
    --upgrade                 every package to the newest version its requirement allows
    --upgrade-package NAME    this package (repeatable); other pins stay where they can
    --check                   write nothing; exit 1 and say which lock is stale

Without --upgrade, pins already in a lock are kept wherever the requirements
still allow them, so a lock changes only where requirements*.txt did.

Needs uv (in requirements-dev.txt; found on PATH or in .venv-dev).  Standard library only.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as bootstrap  # noqa: E402  (reads the header this writes)

ROOT = bootstrap.ROOT

# (input, lock, constraint, lowest Python the lock must serve).  The runtime lock
# serves every Python the dependencies allow (ddgs needs 3.10); the dev lock is
# pinned to the runtime lock so the tests run what users get (hypothesis needs 3.11).
LOCKS = (
    ("requirements.txt", "requirements.lock", None, "3.10"),
    ("requirements-dev.txt", "requirements-dev.lock", "requirements.lock", "3.11"),
)


def included(path: str) -> list[str]:
    """The requirement files ``path`` pulls in with -r, itself first (paths relative to ROOT)."""
    out = [path]
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) == 2 and words[0] in ("-r", "--requirement"):
                rel = os.path.normpath(os.path.join(os.path.dirname(path), words[1]))
                out += [p for p in included(rel) if p not in out]
    return out


def inputs(requirements: str, constraint: str | None) -> list[str]:
    return included(requirements) + ([constraint] if constraint else [])


def header(requirements: str, lock: str, constraint: str | None) -> str:
    lines = [
        "# %s: what %s installs, every file pinned by hash."
        % (lock, "bootstrap/test.py" if constraint else "bootstrap/run.py"),
        "# Written by `python3 bootstrap/lock.py` from the files below (their sha256); edit them,",
        "# not this, then run it again (README: Reproducible installs).",
    ]
    lines += [
        "%s%s  %s" % (bootstrap.LOCK_INPUT_PREFIX, bootstrap.file_sha256(os.path.join(ROOT, p)), p)
        for p in inputs(requirements, constraint)
    ]
    return "\n".join(lines) + "\n"


def stale(requirements: str, lock: str, constraint: str | None) -> str | None:
    """None when the lock was written from the current inputs, else why not."""
    try:
        recorded = bootstrap.lock_inputs(bootstrap.read_requirements(os.path.join(ROOT, lock)))
    except FileNotFoundError:
        return "%s is missing" % lock
    want = {p: bootstrap.file_sha256(os.path.join(ROOT, p)) for p in inputs(requirements, constraint)}
    changed = sorted(p for p in set(want) | set(recorded) if want.get(p) != recorded.get(p))
    return "%s was written from another %s" % (lock, ", ".join(changed)) if changed else None


def find_uv() -> str | None:
    uv = shutil.which("uv")
    dev = os.path.join(ROOT, ".venv-dev", "bin", "uv")
    if uv is None and os.access(dev, os.X_OK):
        uv = dev
    return uv


def compile_lock(
    uv: str, requirements: str, lock: str, constraint: str | None, python: str, upgrade: bool, packages: list[str]
) -> None:
    # uv reads the pins already in its output file as preferences, so the lock is
    # compiled in place of a copy of the old one and replaces it only when whole.
    fd, tmp = tempfile.mkstemp(prefix=".%s." % lock, dir=ROOT)
    os.close(fd)
    try:
        if os.path.exists(os.path.join(ROOT, lock)):
            shutil.copyfile(os.path.join(ROOT, lock), tmp)
        cmd = [
            uv,
            "pip",
            "compile",
            "--quiet",
            "--universal",
            "--python-version",
            python,
            "--generate-hashes",
            "--no-header",
            "--annotation-style",
            "line",
            requirements,
            "--output-file",
            tmp,
        ]
        if constraint:
            cmd += ["--constraint", constraint]
        if upgrade:
            cmd.append("--upgrade")
        for name in packages:
            cmd += ["--upgrade-package", name]
        subprocess.run(cmd, cwd=ROOT, check=True, stdin=subprocess.DEVNULL)
        with open(tmp, encoding="utf-8") as f:
            body = f.read()
        # Where packages came from is each machine's own configuration, never the lock's.
        options = [line for line in body.splitlines() if line.startswith("-") or "://" in line]
        if options:
            raise SystemExit(
                "lock.py: uv wrote index or link lines into %s (%s); check the uv configuration"
                % (lock, options[0].split()[0])
            )
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(header(requirements, lock, constraint) + body)
        os.replace(tmp, os.path.join(ROOT, lock))
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def main(argv: list[str]) -> int:
    upgrade, packages, check = False, [], False
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--upgrade":
            upgrade = True
        elif arg == "--upgrade-package" and args:
            packages.append(args.pop(0))
        elif arg.startswith("--upgrade-package="):
            packages.append(arg.split("=", 1)[1])
        elif arg == "--check":
            check = True
        else:
            sys.stderr.write(__doc__)
            return 2
    todo = [spec for spec in LOCKS if os.path.exists(os.path.join(ROOT, spec[0]))]
    if check:
        problems = [p for p in (stale(req, lock, con) for req, lock, con, _ in todo) if p]
        for p in problems:
            sys.stderr.write("lock.py: %s: run python3 bootstrap/lock.py\n" % p)
        return 1 if problems else 0
    uv = find_uv()
    if uv is None:
        sys.stderr.write("lock.py needs uv: pip install uv, or run python3 bootstrap/test.py once (.venv-dev has it)\n")
        return 1
    for requirements, lock, constraint, python in todo:
        try:
            compile_lock(uv, requirements, lock, constraint, python, upgrade, packages)
        except subprocess.CalledProcessError as exc:
            sys.stderr.write("lock.py: uv pip compile failed for %s (exit %d)\n" % (requirements, exc.returncode))
            return 1
        sys.stderr.write("lock.py: wrote %s\n" % lock)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
