"""bootstrap/build_backend.py without pip (issue 44): pyproject.toml's [project] is what the backend
writes, the wheel pins what the worker rewrites at run time to the lock's versions, the sdist is the
same bytes whenever and wherever it is built, and a wheel built from the sdist is the same package.
tests/test_package.py installs the wheel and the editable wheel through pip (slow)."""

import email
import io
import os
import re
import subprocess
import sys
import tarfile
import time
import zipfile

import locks
import pytest
import tomllib
from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "bootstrap"))
import build_backend  # noqa: E402

from worker.pages.extract import versions  # noqa: E402


def project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def test_pyprojects_project_table_is_what_the_backend_writes():
    data = project()
    p = data["project"]
    assert data["build-system"] == {"requires": [], "build-backend": "build_backend", "backend-path": ["bootstrap"]}
    assert p["name"] == build_backend.NAME
    assert p["description"] == build_backend.SUMMARY
    assert p["requires-python"] == build_backend.REQUIRES_PYTHON
    assert p["license"] == build_backend.LICENSE and p["license-files"] == list(build_backend.LICENSE_FILES)
    assert p["scripts"] == dict([tuple(s.strip() for s in build_backend.SCRIPT.split("="))])
    assert sorted(p["dynamic"]) == ["dependencies", "version"]  # worker.__version__, requirements.txt (+ lock)
    assert set(p) == {"name", "dynamic", "description", "requires-python", "license", "license-files", "scripts"}, (
        "a [project] field the backend does not write: teach bootstrap/build_backend.py, then this test"
    )
    meta = email.message_from_string(build_backend.metadata())
    assert meta["Name"] == p["name"] and meta["Summary"] == p["description"]
    assert meta["Requires-Python"] == p["requires-python"] and meta["License-Expression"] == p["license"]


def test_the_wheel_requires_the_rewritten_libraries_at_the_locks_versions():
    pins = {e.name: e.version for e in locks.parse(locks.RUNTIME)}
    reqs = build_backend.requirements()
    assert set(build_backend.PINNED) == set(versions.TESTED)
    for dist in build_backend.PINNED:
        assert "%s==%s" % (dist, pins[dist]) in reqs
        assert pins[dist] == versions.TESTED[dist]  # the versions the run-time rewrites switch on for
    with open(os.path.join(ROOT, "requirements.txt"), encoding="utf-8") as f:
        wanted = [line.split("#")[0].strip() for line in f if line.split("#")[0].strip()]
    loose = [r for r in wanted if build_backend._name(r) not in build_backend.PINNED]
    assert [r for r in reqs if build_backend._name(r) not in build_backend.PINNED] == loose  # the others as written
    assert len(reqs) == len(wanted)


def test_a_lock_without_the_pin_is_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "requirements.txt").write_text("trafilatura~=2.3\n")
    (tmp_path / "requirements.lock").write_text("lxml==6.1.3 \\\n    --hash=sha256:" + "0" * 64 + "\n")
    monkeypatch.setattr(build_backend, "ROOT", str(tmp_path))
    with pytest.raises(ValueError, match="requirements.lock pins no trafilatura"):
        build_backend.requirements()


def build(kind, source, out, tz="UTC"):
    """build_sdist or build_wheel of the tree at ``source``, in its own process in time zone ``tz``;
    (file name, bytes)."""
    code = (
        "import sys; sys.path.insert(0, 'bootstrap'); import build_backend; print(build_backend.build_%s(sys.argv[1]))"
    )
    os.makedirs(out)
    r = subprocess.run(
        [sys.executable, "-I", "-c", code % kind, out],
        cwd=source,
        env=dict(os.environ, TZ=tz),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    with open(os.path.join(out, r.stdout.strip()), "rb") as f:
        return r.stdout.strip(), f.read()


@pytest.fixture(scope="module")
def sdist(tmp_path_factory):
    """An sdist of the checkout, and its files unpacked: a tree no one edits while the tests build
    from it (the checkout may change under a test that builds from it twice)."""
    tmp = tmp_path_factory.mktemp("sdist")
    name, data = build("sdist", ROOT, str(tmp / "dist"))
    with tarfile.open(str(tmp / "dist" / name)) as tar:
        tar.extractall(str(tmp / "unpacked"), filter="data")
    return {"name": name, "bytes": data, "tree": str(tmp / "unpacked" / name[: -len(".tar.gz")])}


def test_two_sdists_built_at_different_times_and_time_zones_are_the_same_bytes(sdist, tmp_path):
    time.sleep(1.1)  # gzip's header and tar's entries count whole seconds
    name, second = build("sdist", sdist["tree"], str(tmp_path / "b"), "Asia/Kathmandu")  # UTC+05:45
    _, third = build("sdist", sdist["tree"], str(tmp_path / "c"), "America/St_Johns")  # UTC-03:30
    assert name == sdist["name"] and sdist["bytes"] == second == third
    first = sdist["bytes"]
    # what makes it so: no time and no name in the gzip header, entries at EPOCH, root's, 644
    assert first[:2] == b"\x1f\x8b" and first[4:8] == b"\0\0\0\0" and not first[3] & 0x08  # MTIME 0, no FNAME
    with tarfile.open(str(tmp_path / "b" / name)) as tar:
        members = tar.getmembers()
        names = [m.name for m in members]
        base = name[: -len(".tar.gz")]
        for wanted in (
            "pyproject.toml",
            "requirements.txt",
            "requirements.lock",
            "bootstrap/build_backend.py",
            "PKG-INFO",
        ):
            assert "%s/%s" % (base, wanted) in names
        for m in members:
            assert (m.mtime, m.uid, m.gid, m.uname, m.gname) == (build_backend.EPOCH_SECONDS, 0, 0, "", ""), m.name
            assert m.mode in (0o644, 0o755) and m.isfile(), (m.name, oct(m.mode))
        pkg_info = email.message_from_bytes(tar.extractfile("%s/PKG-INFO" % base).read())
    assert build_backend.EPOCH_SECONDS == 1577836800  # 2020-01-01T00:00:00Z, whatever the local zone
    assert "trafilatura==%s" % versions.TESTED["trafilatura"] in pkg_info.get_all("Requires-Dist")


def test_entries_are_normalised_whatever_the_checkouts_modes_and_owners():
    for mode, want in ((0o600, 0o644), (0o664, 0o644), (0o775, 0o755), (0o700, 0o755)):
        info = tarfile.TarInfo("x")
        info.mode, info.uid, info.gid, info.uname, info.gname, info.mtime = mode, 1000, 1000, "me", "staff", time.time()
        clean = build_backend._clean(info)
        assert (clean.mode, clean.uid, clean.uname, clean.mtime) == (want, 0, "", build_backend.EPOCH_SECONDS)


def test_a_wheel_built_from_the_sdist_holds_its_packages_and_pins(sdist, tmp_path):
    name, data = build("wheel", sdist["tree"], str(tmp_path / "w"))
    _, again = build("wheel", sdist["tree"], str(tmp_path / "w2"), "Asia/Kathmandu")
    assert data == again  # the wheel is reproducible too
    with tarfile.open(fileobj=io.BytesIO(sdist["bytes"])) as tar:
        base = sdist["name"][: -len(".tar.gz")] + "/"
        names = sorted(m.name[len(base) :] for m in tar.getmembers())
        packaged = [n for n in names if n.startswith(("worker/", "hosts/"))]
        pkg_info = tar.extractfile(base + "PKG-INFO").read()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert sorted(n for n in z.namelist() if not n.startswith("websearch_worker-")) == packaged
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA")))
    assert meta == pkg_info and b"Requires-Dist: readability-lxml==0.9" in meta


def test_the_editable_wheel_is_a_pth_onto_the_checkout_with_the_same_metadata_and_command(tmp_path):
    editable = build_backend.build_editable(str(tmp_path))
    (tmp_path / "full").mkdir()
    full = build_backend.build_wheel(str(tmp_path / "full"))
    assert editable == full  # the same name: one version of one project
    with zipfile.ZipFile(str(tmp_path / editable)) as z:
        names = z.namelist()
        pth = [n for n in names if n.endswith(".pth")]
        assert pth == ["__editable__.websearch_worker.pth"] and z.read(pth[0]).decode() == ROOT + "\n"
        assert not [n for n in names if n.endswith(".py")]
        dist_info = {n: z.read(n) for n in names if ".dist-info/" in n and not n.endswith("RECORD")}
        record = z.read(next(n for n in names if n.endswith("RECORD"))).decode()
    with zipfile.ZipFile(str(tmp_path / "full" / full)) as z:
        assert dist_info == {n: z.read(n) for n in z.namelist() if ".dist-info/" in n and not n.endswith("RECORD")}
    assert re.search(r"^__editable__\.websearch_worker\.pth,sha256=[\w-]+,%d$" % (len(ROOT) + 1), record, re.M)
    assert (
        "websearch-worker = worker.console:main"
        in dist_info[next(n for n in dist_info if n.endswith("entry_points.txt"))].decode()
    )
    assert build_backend.get_requires_for_build_editable() == []
