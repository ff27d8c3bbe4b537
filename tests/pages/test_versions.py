"""The run-time rewrites of trafilatura and readability-lxml (imports.py's stand-ins, trafilatura_fast,
readability_fast) apply only to the versions they were tested on, which are the lock's; on any other
version each is off, with one warning, and the pages read the same (issue 44)."""

import json
import os
import subprocess
import sys

import locks
import pytest
from conftest import ROOT

from worker.pages.extract import versions

# trafilatura reads the first, readability the second (extractor "trafilatura", "readability")
PAGES = [os.path.join(ROOT, "tests", "fixtures", "pages", n) for n in ("blog_post.html", "list_page.html")]


def test_the_tested_versions_are_the_locks():
    pins = {e.name: e.version for e in locks.parse(locks.RUNTIME)}
    assert versions.TESTED == {dist: pins[dist] for dist in versions.TESTED}
    assert set(versions.TESTED) == set(versions.MODULE) == {"trafilatura", "readability-lxml"}


def test_the_version_is_read_from_the_dist_info_folders_name(tmp_path):
    for name in (
        "trafilatura",
        "trafilatura-2.4.0.dist-info",
        "trafilatura_extra-1.0.dist-info",  # another project whose name starts alike
        "readability",
        "readability_lxml-0.9.dist-info",
        "Readability.LXML-0.8.egg-info",  # not a wheel's record: no version read from it
    ):
        (tmp_path / name).mkdir()
    assert versions.installed_versions("trafilatura", str(tmp_path)) == ["2.4.0"]
    assert versions.installed_versions("readability-lxml", str(tmp_path)) == ["0.9"]
    (tmp_path / "Trafilatura-2.3.1.dist-info").mkdir()  # a second install left behind: two answers
    assert versions.installed_versions("trafilatura", str(tmp_path)) == ["2.3.1", "2.4.0"]
    assert versions.installed_versions("trafilatura", str(tmp_path / "gone")) == []


def test_the_dev_venv_holds_the_tested_versions():
    for dist, version in versions.TESTED.items():
        assert versions.installed_version(dist) == version, dist
        assert versions.tested(dist) is True


def test_the_version_is_read_without_importlib_metadata():
    code = (
        "import sys; from worker.pages.extract import versions; "
        "ok = versions.tested('trafilatura') and versions.tested('readability-lxml'); "
        "print(ok, 'importlib.metadata' in sys.modules, 'trafilatura' in sys.modules)"
    )
    r = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.stdout.split() == ["True", "False", "False"], r  # nor the library itself imported
    assert r.stderr == ""


# One process extracts a page and says which rewrites were in place; FAKE, when set, is the version
# the reader reports for every dist (the installed ones are the tested ones, see above).
PROBE = r"""
import json, sys
from worker.pages.extract import versions
fake = sys.argv[1]
if fake:
    versions.installed_versions = lambda dist, folder=None: [fake]
from worker.pages.extract import core, imports, readability_fast, trafilatura_fast
texts, extractors = [], []
for path in sys.argv[2:]:
    with open(path, encoding="utf-8") as f:
        html = f.read()
    first = core.extract(html, "https://blog.example/post")
    second = core.extract(html, "https://blog.example/post")  # the warnings are once a process
    assert first["text"] == second["text"]
    texts.append(first["text"])
    extractors.append(first["extractor"])
rd = sys.modules["readability.readability"]
import lxml.etree
lazies = sum(isinstance(v, trafilatura_fast.Lazy) for m in trafilatura_fast.trafilatura_modules() for v in vars(m).values())
print(json.dumps({
    "texts": texts, "extractors": extractors,
    "imports": imports.mode(), "xpaths": trafilatura_fast._ONCE, "lazies": lazies,
    "clean": rd.clean is readability_fast.clean, "tostring": rd.tostring is not lxml.etree.tostring,
    "quiet": hasattr(rd.describe, "__wrapped__") and hasattr(rd.Document.remove_unlikely_candidates, "__wrapped__"),
}))
"""


def probe(fake):
    r = subprocess.run(
        [sys.executable, "-I", "-c", PROBE, fake] + PAGES,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env=dict(os.environ, WEBSEARCH_WORKER_PLAIN_IMPORTS="", WEBSEARCH_WORKER_PLAIN=""),  # the tricks on
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


@pytest.fixture(scope="module")
def tested_run():
    return probe("")


def test_on_the_tested_versions_every_rewrite_is_in_place(tested_run):
    out, err = tested_run
    assert "warning" not in err, err
    assert out["imports"] == "deferred" and out["xpaths"][0] > 0 and out["lazies"] > 0, out
    assert out["clean"] is True and out["tostring"] is True and out["quiet"] is True, out
    assert out["extractors"] == ["trafilatura", "readability"] and min(map(len, out["texts"])) > 200, out


@pytest.mark.parametrize("fake", ["2.4.0", "0.10"])
def test_on_another_version_every_rewrite_is_off_with_one_warning_and_the_page_reads_the_same(tested_run, fake):
    out, err = probe(fake)
    assert out["imports"] == "plain" and out["xpaths"] == [0] and out["lazies"] == 0, out
    assert out["clean"] is False and out["tostring"] is False and out["quiet"] is False, out
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 2, err  # one a dist, not one a page
    assert any(
        w.startswith("websearch-worker: warning: trafilatura %s is installed, not 2.3.1" % fake) for w in warnings
    )
    assert any(
        w.startswith("websearch-worker: warning: readability-lxml %s is installed, not 0.9" % fake) for w in warnings
    )
    assert "Traceback" not in err
    # the rewrites change time, not text: the library as it ships reads the page the same
    assert out["texts"] == tested_run[0]["texts"] and out["extractors"] == tested_run[0]["extractors"]
