"""The lock files (requirements.lock, requirements-dev.lock) read as data, for the tests that check them
and the tests that must run against the locked versions of what they watch."""

import importlib.metadata
import os
import re

from packaging.markers import Marker
from packaging.utils import canonicalize_name

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNTIME = os.path.join(ROOT, "requirements.lock")
DEV = os.path.join(ROOT, "requirements-dev.lock")

_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]+?))?\s*\\?$")


class Entry:
    def __init__(self, name, version, marker, hashes):
        self.name = canonicalize_name(name)
        self.version = version
        self.marker = marker  # None or a packaging Marker
        self.hashes = hashes

    def applies(self):
        """Installed on this interpreter and platform."""
        return self.marker is None or self.marker.evaluate()

    def __repr__(self):
        return "%s==%s%s" % (self.name, self.version, " ; %s" % self.marker if self.marker else "")


def parse(path):
    """Every pinned entry of a lock, in order, with its hashes."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if stripped.startswith("--hash="):
                entries[-1].hashes.append(stripped.split("=", 1)[1].rstrip(" \\"))
                continue
            m = _PIN.match(stripped)
            assert m, "not a pinned requirement in %s: %r" % (os.path.basename(path), line)
            entries.append(Entry(m.group(1), m.group(2), Marker(m.group(3)) if m.group(3) else None, []))
    return entries


def pins(path):
    """{canonical name: version} for the entries installed here."""
    return {e.name: e.version for e in parse(path) if e.applies()}


def version_problem(dist):
    """None when the installed ``dist`` is the version the locks pin, else a sentence saying what differs."""
    name = canonicalize_name(dist)
    try:
        installed = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        installed = None
    for path in (RUNTIME, DEV):
        locked = pins(path).get(name)
        if locked is not None and locked != installed:
            return (
                "%s %s is installed, %s pins %s: these tests watch its internals and hold only for the locked "
                "version (python3 bootstrap/test.py builds .venv-dev from the lock)"
                % (dist, installed or "(none)", os.path.basename(path), locked)
            )
    if name not in pins(RUNTIME) and name not in pins(DEV):
        return "%s is in no lock file: an upstream mark must name a locked distribution" % dist
    return None
