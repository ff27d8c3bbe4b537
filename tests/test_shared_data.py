"""A clone with nothing beside it (issue 28): the tests that read ../shared say in one line what they
skipped and the run passes; under CI=true the same run fails, naming the missing data."""

import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow  # a pytest run of its own

NEEDING_SHARED = ["tests/tools/test_batch.py", "tests/pages/test_markdown.py"]


@pytest.fixture(scope="module")
def lone_clone(tmp_path_factory):
    """The code and tests copied where no ../shared is beside them."""
    clone = tmp_path_factory.mktemp("alone") / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "node_modules", ".venv*")
    for part in ("worker", "tests", "hosts", "bootstrap"):
        shutil.copytree(os.path.join(ROOT, part), str(clone / part), ignore=ignore)
    for name in ("pyproject.toml", "requirements.txt", "requirements.lock"):
        shutil.copy(os.path.join(ROOT, name), str(clone / name))
    assert not os.path.exists(str(clone.parent / "shared"))
    return clone


def _pytest(clone, ci):
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_ADDOPTS")}
    if ci:
        env["CI"] = "true"
    args = NEEDING_SHARED + ["-q", "-p", "no:cacheprovider", "-k", "batch or real_pages"]
    return subprocess.run(
        [sys.executable, "-m", "pytest"] + args, cwd=str(clone), env=env, capture_output=True, text=True, timeout=300
    )


def test_without_the_shared_data_the_tests_that_need_it_skip_saying_so(lone_clone):
    run = _pytest(lone_clone, ci=False)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    skips = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skips) == 2, run.stdout[-3000:]
    assert all("the shared data sets are missing" in line for line in skips), skips
    assert any("test_batch.py" in line for line in skips) and any("test_markdown.py" in line for line in skips)


def test_under_ci_the_missing_shared_data_fails_the_run(lone_clone):
    run = _pytest(lone_clone, ci=True)
    assert run.returncode != 0
    assert "the shared data sets are missing" in run.stdout and "CI=true" in run.stdout, run.stdout[-3000:]
