"""The installable package (pyproject.toml, bootstrap/build_backend.py): a wheel built offline by pip,
installed into a fresh venv, answers through its `websearch-worker` command as the checkout does.

The venv gets the package alone (--no-deps) plus a .pth onto the dev venv's site-packages for the
dependencies: no test reaches a package index.  What pip would install with it is checked in the
wheel's metadata (requirements.txt's requirements, the libraries the worker rewrites at the lock's
versions).  `pip install -e .` in a fresh venv gives a command that runs the checkout (issue 44)."""

import email
import json
import os
import subprocess
import sys
import sysconfig
import zipfile

import locks
import pytest
from conftest import ROOT, worker_env
from fakes.http_server import FakeWeb
from test_mcp import raw_initialize, receive, send

pytestmark = pytest.mark.slow  # a wheel build and a venv


PIP_ENV = dict(os.environ, PIP_CONFIG_FILE=os.devnull)


def fresh_venv(tmp):
    """A venv without pip whose site-packages also sees the dev venv's (the dependencies): its python."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True
    ).stdout.strip()
    with open(os.path.join(purelib, "dev_dependencies.pth"), "w") as f:
        f.write(sysconfig.get_paths()["purelib"] + "\n")
    return python, purelib


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("package")
    wheels = tmp / "wheels"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-index", "-q", "-w", str(wheels), ROOT],
        capture_output=True,
        text=True,
        timeout=300,
        env=PIP_ENV,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = os.listdir(str(wheels))
    python, _ = fresh_venv(tmp)
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "--no-deps",
            "--no-index",
            "-q",
            str(wheels / wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env=PIP_ENV,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    return {"wheel": str(wheels / wheel), "command": str(tmp / "venv" / "bin" / "websearch-worker"), "tmp": tmp}


@pytest.fixture(scope="module")
def web():
    server = FakeWeb().start()
    yield server
    server.stop()


def test_the_wheel_holds_both_packages_the_command_and_the_requirements(installed):
    with zipfile.ZipFile(installed["wheel"]) as z:
        names = z.namelist()
        meta = email.message_from_bytes(z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))))
        entry = z.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert "worker/__main__.py" in names and "hosts/mcp/server.py" in names and "hosts/mcp/firstrun.py" in names
    assert not [n for n in names if n.startswith(("tests/", "bench/", "hosts/pi/"))]
    assert "websearch-worker = worker.console:main" in entry
    with open(os.path.join(ROOT, "requirements.txt"), encoding="utf-8") as f:
        wanted = [line.split("#")[0].strip() for line in f if line.split("#")[0].strip()]
    pins = {e.name: e.version for e in locks.parse(locks.RUNTIME)}
    wanted = [
        "%s==%s" % (r.split("~=")[0], pins[r.split("~=")[0]])
        if r.startswith(("trafilatura~=", "readability-lxml~="))
        else r
        for r in wanted
    ]
    assert meta.get_all("Requires-Dist") == wanted and meta["Name"] == "websearch-worker"
    assert "trafilatura==2.3.1" in wanted and "readability-lxml==0.9" in wanted  # the lock's, exactly


def test_the_command_fetches_a_local_page_from_a_fresh_venv(installed, web, tmp_path):
    run = subprocess.run(
        [installed["command"], "fetch", "--allow-private", web.url("/article")],
        env=worker_env(tmp_path),
        cwd=str(installed["tmp"]),  # not the checkout: the installed package answers
        capture_output=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout.decode()
    payload = json.loads(out.split("\n")[1])
    assert out.startswith("SEARCH_OK\n") and "Glaciers retreat" in payload["results"][0]["content"]
    assert b"usage: websearch-worker" in subprocess.run([installed["command"], "--help"], capture_output=True).stdout


def test_the_command_serves_mcp(installed, web, tmp_path):
    proc = subprocess.Popen(
        [installed["command"], "mcp", "--allow-private"],
        env=worker_env(tmp_path),
        cwd=str(installed["tmp"]),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        raw_initialize(proc)  # the raw JSON-RPC helpers of tests/test_mcp.py
        send(
            proc,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "web_fetch", "arguments": {"urls": [web.url("/article")]}},
            },
        )
        result = receive(proc, 1)["result"]
        assert result["isError"] is False and "Glaciers retreat" in result["content"][0]["text"]
        proc.stdin.close()
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def editable(tmp_path_factory):
    """`pip install -e <checkout>` into a fresh venv, offline: the in-tree backend's build_editable."""
    tmp = tmp_path_factory.mktemp("editable")
    python, purelib = fresh_venv(tmp)
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "install", "--no-build-isolation", "--no-deps"]
        + ["--no-index", "-q", "-e", ROOT],
        capture_output=True,
        text=True,
        timeout=300,
        env=PIP_ENV,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    return {"python": python, "purelib": purelib, "command": str(tmp / "venv" / "bin" / "websearch-worker"), "tmp": tmp}


def test_pip_install_e_gives_a_working_command_that_runs_the_checkout(editable, web, tmp_path):
    import worker

    assert os.path.exists(os.path.join(editable["purelib"], "__editable__.websearch_worker.pth"))
    assert not os.path.exists(os.path.join(editable["purelib"], "worker"))  # no copy: the checkout is imported
    where = subprocess.run(
        [editable["python"], "-c", "import worker, hosts.mcp; print(worker.__file__)"],
        cwd=str(editable["tmp"]),
        capture_output=True,
        text=True,
    )
    assert where.stdout.strip() == os.path.join(ROOT, "worker", "__init__.py"), where
    version = subprocess.run(
        [editable["command"], "--version"], capture_output=True, text=True, cwd=str(editable["tmp"])
    )
    assert version.returncode == 0 and worker.__version__ in version.stdout, version
    run = subprocess.run(
        [editable["command"], "fetch", "--allow-private", web.url("/article")],
        env=worker_env(tmp_path),
        cwd=str(editable["tmp"]),
        capture_output=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    out = run.stdout.decode()
    assert (
        out.startswith("SEARCH_OK\n") and "Glaciers retreat" in json.loads(out.split("\n")[1])["results"][0]["content"]
    )
    listed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", editable["python"], "show", "websearch-worker"],
        capture_output=True,
        text=True,
        env=PIP_ENV,
    )
    assert "Editable project location: %s" % ROOT in listed.stdout, listed.stdout
