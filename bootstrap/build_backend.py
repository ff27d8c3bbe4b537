"""The package's PEP 517 build backend: a wheel and an sdist of worker/ and hosts/, standard library only.

pyproject.toml names it (``backend-path = ["bootstrap"]``), so `pip install .`, `pipx install .`
and `uvx --from . websearch-worker` build the package with nothing to download: no setuptools,
no network; `pip install -e .` gets an editable wheel (PEP 660: a .pth onto the checkout).  The
wheel holds the two packages, a ``websearch-worker`` command (worker.console:main) and
requirements.txt's requirements as its dependencies, the same compatible-release bounds the
bootstrap's lock is written from, but for the libraries whose internals the worker rewrites at run
time (PINNED): those at requirements.lock's exact versions.

pyproject.toml's [project] table says the same as the constants below (name, description,
requires-python, licence, script); tests/test_package.py holds the two equal.  Every archive is
byte-reproducible: fixed entry times (UTC), a gzip header without time or name, normalised owners
and modes.
"""

from __future__ import annotations

import base64
import calendar
import gzip
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "websearch-worker"
DIST = "websearch_worker"
PACKAGES = ("worker", "hosts")
SUMMARY = "Web search and web fetch for coding agents: a CLI, an MCP server and a pi extension"
REQUIRES_PYTHON = ">=3.10"  # ddgs needs 3.10 (bootstrap/lock.py)
SCRIPT = "websearch-worker = worker.console:main"
# A fixed time for every archive entry, UTC: the same tree builds the same bytes, anywhere, any time.
EPOCH = (2020, 1, 1, 0, 0, 0)
EPOCH_SECONDS = calendar.timegm(EPOCH + (0, 0, 0))  # not time.mktime: that reads the local time zone
# The worker rewrites these libraries' internals at run time (worker/pages/extract/versions.py, where
# the same versions are TESTED): the wheel requires the version the lock pins, no other.
PINNED = ("trafilatura", "readability-lxml")


def version() -> str:
    with open(os.path.join(ROOT, "worker", "__init__.py"), encoding="utf-8") as f:
        match = re.search(r'^__version__\s*=\s*"([^"]+)"', f.read(), re.M)
    if not match:
        raise ValueError("worker/__init__.py has no __version__")
    return match.group(1)


def _name(requirement: str) -> str:
    """A requirement's project name, normalised (PEP 503)."""
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    return re.sub(r"[-_.]+", "-", match.group(0)).lower() if match else ""


def locked() -> dict[str, str]:
    """requirements.lock's pins: {normalised name: version}."""
    out = {}
    with open(os.path.join(ROOT, "requirements.lock"), encoding="utf-8") as f:
        for line in f:
            match = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", line)
            if match:
                out[_name(match.group(1))] = match.group(2)
    return out


def requirements() -> list[str]:
    """requirements.txt's requirements, comments and blank lines left out; PINNED ones at the
    lock's version.  ValueError when the lock does not pin one of them."""
    out = []
    pins = None
    with open(os.path.join(ROOT, "requirements.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name = _name(line)
            if name in PINNED:
                pins = locked() if pins is None else pins
                if name not in pins:
                    raise ValueError("requirements.lock pins no %s: run python3 bootstrap/lock.py" % name)
                line = "%s==%s" % (name, pins[name])
            out.append(line)
    return out


LICENSE = "Apache-2.0"  # pyproject.toml's [project] license; tests/test_licence.py keeps the two equal
LICENSE_FILES = ("LICENSE", "NOTICE")


def metadata() -> str:
    lines = [
        "Metadata-Version: 2.4",  # 2.4: License-Expression and License-File (PEP 639)
        "Name: %s" % NAME,
        "Version: %s" % version(),
        "Summary: %s" % SUMMARY,
        "License-Expression: %s" % LICENSE,
        "Requires-Python: %s" % REQUIRES_PYTHON,
    ]
    lines += ["License-File: %s" % n for n in LICENSE_FILES]
    lines += ["Requires-Dist: %s" % r for r in requirements()]
    return "\n".join(lines) + "\n"


def package_files() -> list[str]:
    """The .py files of the packages, relative to the checkout, in a stable order."""
    out = []
    for top in PACKAGES:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            # a folder without __init__.py (hosts/pi: TypeScript) is no part of the Python package
            dirnames[:] = sorted(
                d for d in dirnames if os.path.exists(os.path.join(dirpath, d, "__init__.py")) and d != "__pycache__"
            )
            out += [os.path.relpath(os.path.join(dirpath, n), ROOT) for n in sorted(filenames) if n.endswith(".py")]
    return out


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _add(z: zipfile.ZipFile, name: str, data: bytes, record: list[str]) -> None:
    info = zipfile.ZipInfo(name, EPOCH)
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)
    record.append("%s,%s,%d" % (name, _digest(data), len(data)))


def _wheel(wheel_directory: str, contents: list[tuple[str, bytes]]) -> str:
    """A wheel of ``contents`` (name in the archive, bytes) and the dist-info; its file name."""
    dist_info = "%s-%s.dist-info" % (DIST, version())
    name = "%s-%s-py3-none-any.whl" % (DIST, version())
    record: list[str] = []
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        for arcname, data in contents:
            _add(z, arcname, data, record)
        _add(z, dist_info + "/METADATA", metadata().encode(), record)
        for n in LICENSE_FILES:  # PEP 639: the licence texts travel in the wheel
            with open(os.path.join(ROOT, n), "rb") as f:
                _add(z, "%s/licenses/%s" % (dist_info, n), f.read(), record)
        wheel = (
            "Wheel-Version: 1.0\nGenerator: websearch-worker build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        _add(z, dist_info + "/WHEEL", wheel.encode(), record)
        _add(z, dist_info + "/entry_points.txt", ("[console_scripts]\n%s\n" % SCRIPT).encode(), record)
        _add(z, dist_info + "/top_level.txt", "".join(p + "\n" for p in PACKAGES).encode(), record)
        record.append(dist_info + "/RECORD,,")
        _add(z, dist_info + "/RECORD", ("\n".join(record) + "\n").encode(), [])
    return name


def build_wheel(
    wheel_directory: str, config_settings: dict[str, object] | None = None, metadata_directory: str | None = None
) -> str:
    contents = []
    for rel in package_files():
        with open(os.path.join(ROOT, rel), "rb") as f:
            contents.append((rel.replace(os.sep, "/"), f.read()))
    return _wheel(wheel_directory, contents)


def build_editable(
    wheel_directory: str, config_settings: dict[str, object] | None = None, metadata_directory: str | None = None
) -> str:
    """PEP 660: a wheel whose one file is a .pth putting this checkout on sys.path, so worker/ and
    hosts/ are imported from here as they are edited; the command and the metadata as build_wheel's."""
    return _wheel(wheel_directory, [("__editable__.%s.pth" % DIST, (ROOT + "\n").encode())])


def build_sdist(sdist_directory: str, config_settings: dict[str, object] | None = None) -> str:
    base = "%s-%s" % (DIST, version())
    files = package_files() + ["pyproject.toml", "requirements.txt", "requirements.lock", "bootstrap/build_backend.py"]
    files += [n for n in ("LICENSE", "NOTICE", "README.md") if os.path.exists(os.path.join(ROOT, n))]
    path = os.path.join(sdist_directory, base + ".tar.gz")
    # gzip's header holds a time and a file name unless told: none here (tarfile's "w:gz" writes both)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for rel in files:
                tar.add(os.path.join(ROOT, rel), arcname="%s/%s" % (base, rel), recursive=False, filter=_clean)
            pkg_info = metadata().encode()
            info = _clean(tarfile.TarInfo("%s/PKG-INFO" % base))
            info.size = len(pkg_info)
            tar.addfile(info, io.BytesIO(pkg_info))
    return base + ".tar.gz"


def _clean(info: tarfile.TarInfo) -> tarfile.TarInfo:
    """An entry as any checkout gives it: root's, at EPOCH, 0o644 (0o755 when executable)."""
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = EPOCH_SECONDS
    info.mode = 0o755 if info.mode & 0o111 else 0o644
    return info


def get_requires_for_build_wheel(config_settings: dict[str, object] | None = None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings: dict[str, object] | None = None) -> list[str]:
    return []


def get_requires_for_build_editable(config_settings: dict[str, object] | None = None) -> list[str]:
    return []
