#!/usr/bin/env python3
"""Run the whole test suite from a fresh clone:  python3 bootstrap/test.py [--quick] [pytest args]

Builds (once) a dev venv at .venv-dev from requirements-dev.lock, using the same
installer, lock and ready stamp as bootstrap/run.py, then runs pytest in it, and
the pi host's Node tests when Node and hosts/pi are present.
--quick: only the tests not marked slow (pyproject.toml), no Node tests.
Standard library only.
"""

from __future__ import annotations

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run as bootstrap  # noqa: E402

ROOT = bootstrap.ROOT
DEV_REQUIREMENTS = os.path.join(ROOT, "requirements-dev.txt")
DEV_LOCK = os.path.join(ROOT, "requirements-dev.lock")


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    argv = [a for a in argv if a != "--quick"]
    venv = os.environ.get("WEBSEARCH_WORKER_DEV_VENV") or os.path.join(ROOT, ".venv-dev")
    # Both requirement files: the dev one pulls in requirements.txt with -r.
    inputs = (
        bootstrap.read_requirements(DEV_REQUIREMENTS) + bootstrap.read_requirements(bootstrap.REQUIREMENTS),
        bootstrap.read_requirements(DEV_LOCK),
    )
    if bootstrap.stamp_problem(venv, inputs) is not None:
        try:
            bootstrap.ensure_ready(venv, lock_file=DEV_LOCK, inputs=inputs)
        except bootstrap.InstallError as exc:
            sys.stderr.write("could not build the dev venv: %s\n%s\n" % (exc, exc.output[-3000:]))
            return 1
    python = bootstrap.venv_python(venv)
    # Test paths given (tests/test_x.py, tests/test_x.py::name): run those, not the whole suite too.
    paths = [a for a in argv if not a.startswith("-") and os.path.exists(os.path.join(ROOT, a.split("::", 1)[0]))]
    rc = subprocess.call(
        [python, "-m", "pytest"] + ([] if paths else ["tests"]) + (["-m", "not slow"] if quick else []) + argv, cwd=ROOT
    )
    if rc == 5:  # no tests collected: say so rather than pass silently
        sys.stderr.write("pytest collected no tests\n")
        return 1
    if rc != 0:
        return rc
    pi = os.path.join(ROOT, "hosts", "pi")
    if os.path.exists(os.path.join(pi, "package.json")) and not argv and not quick:
        rc = subprocess.call(["bash", os.path.join(pi, "test.sh")], cwd=pi)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
