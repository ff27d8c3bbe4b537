"""requirements.lock and requirements-dev.lock: written from the current requirement files, every
requirement met by its pin, every file pinned by hash, no index named, dev pins equal to runtime pins,
and the dev venv holding exactly the locked versions."""

import hashlib
import importlib.metadata
import os
import subprocess
import sys

import locks
import pytest
from conftest import ROOT
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

pytest_plugins = ["pytester"]

LOCKS = {  # lock: the files it must have been written from (bootstrap/lock.py)
    locks.RUNTIME: ["requirements.txt"],
    locks.DEV: ["requirements-dev.txt", "requirements.txt", "requirements.lock"],
}


def requirements(path):
    """The requirements a file names itself and through -r, as packaging Requirements."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].strip()
            if not words:
                continue
            if words.startswith(("-r ", "--requirement ")):
                out += requirements(os.path.join(os.path.dirname(path), words.split()[1]))
            else:
                out.append(Requirement(words))
    return out


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.mark.parametrize("lock", sorted(LOCKS), ids=os.path.basename)
def test_lock_was_written_from_the_current_requirement_files(lock):
    with open(lock, encoding="utf-8") as f:
        header = [line.split()[3:5] for line in f if line.startswith("# input sha256 ")]
    assert [path for _digest, path in header] == LOCKS[lock]
    for digest, path in header:
        assert digest == sha256(os.path.join(ROOT, path)), (
            "%s was written from another %s: run python3 bootstrap/lock.py" % (os.path.basename(lock), path)
        )


@pytest.mark.parametrize(
    "lock,source",
    [(locks.RUNTIME, "requirements.txt"), (locks.DEV, "requirements-dev.txt")],
    ids=["requirements.lock", "requirements-dev.lock"],
)
def test_every_requirement_is_pinned_to_a_version_it_allows(lock, source):
    entries = locks.parse(lock)
    for req in requirements(os.path.join(ROOT, source)):
        pinned = [e for e in entries if e.name == canonicalize_name(req.name)]
        assert pinned, "%s is not in %s" % (req, os.path.basename(lock))
        for e in pinned:
            assert req.specifier.contains(e.version, prereleases=True), "%r does not satisfy %s" % (e, req)


@pytest.mark.parametrize("lock", sorted(LOCKS), ids=os.path.basename)
def test_every_file_is_pinned_by_hash_and_no_index_is_named(lock):
    entries = locks.parse(lock)  # fails on any line that is not a pin, a hash or a comment
    assert entries
    for e in entries:
        assert e.hashes and all(h.startswith("sha256:") and len(h) == 7 + 64 for h in e.hashes), e
    with open(lock, encoding="utf-8") as f:
        text = f.read()
    # Where packages come from is each machine's pip or uv configuration, never the lock's.
    assert "://" not in text
    assert not [line for line in text.splitlines() if line.startswith("-")]


def test_dev_lock_pins_what_users_get():
    runtime = {(e.name, e.version, str(e.marker)): e.hashes for e in locks.parse(locks.RUNTIME)}
    dev = {(e.name, e.version, str(e.marker)): e.hashes for e in locks.parse(locks.DEV)}
    here = locks.pins(locks.RUNTIME)
    assert here.items() <= locks.pins(locks.DEV).items()
    for key in dev.keys() & runtime.keys():
        assert sorted(dev[key]) == sorted(runtime[key]), key


@pytest.mark.parametrize("lock", sorted(LOCKS), ids=os.path.basename)
def test_every_dependency_of_a_locked_package_is_locked(lock):
    """pip installs the lock with --no-deps: a dependency missing from it would be missing from the venv."""
    pinned = locks.pins(lock)
    missing, seen = set(), set()
    todo = [(name, ()) for name in pinned]
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        for text in importlib.metadata.requires(name) or []:
            req = Requirement(text)
            if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in ("",) + extras):
                if canonicalize_name(req.name) not in pinned:
                    missing.add("%s (for %s)" % (req.name, name))
                elif req.extras:  # lxml[html_clean] needs lxml-html-clean too
                    todo.append((canonicalize_name(req.name), tuple(sorted(req.extras))))
    assert not missing, missing
    assert ("lxml", ("html-clean",)) in seen or ("lxml", ("html_clean",)) in seen  # extras were followed


def test_the_dev_venv_holds_the_locked_versions():
    """What the tests run against is the dev lock; a venv built otherwise says so here first."""
    wrong = {}
    for name, version in locks.pins(locks.DEV).items():
        try:
            installed = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            wrong[name] = (installed, version)
    assert not wrong, "installed, locked: %s (python3 bootstrap/test.py builds .venv-dev from the lock)" % wrong


def test_lock_check_passes():
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bootstrap", "lock.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr


def test_version_problem_names_the_installed_and_the_locked_version(monkeypatch):
    assert locks.version_problem("ddgs") is None
    locked = locks.pins(locks.RUNTIME)["ddgs"]
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda d: "0.0.1" if d == "ddgs" else real(d))
    assert locks.version_problem("ddgs").startswith("ddgs 0.0.1 is installed, requirements.lock pins %s" % locked)
    assert "in no lock file" in locks.version_problem("no-such-dist")


def test_an_upstream_test_fails_rather_than_skips_on_another_version(pytester, monkeypatch):
    import conftest

    pytester.makepyfile(
        test_x="""
        import pytest

        @pytest.mark.upstream("ddgs")
        def test_watches_ddgs():
            pass

        def test_plain():
            pass
    """
    )
    real = importlib.metadata.version
    monkeypatch.setattr(importlib.metadata, "version", lambda d: "0.0.1" if d == "ddgs" else real(d))
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", plugins=[conftest])
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["ddgs 0.0.1 is installed, requirements.lock pins *: these tests watch its internals*"])
