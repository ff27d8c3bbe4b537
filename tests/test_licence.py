"""The licence (issue 34, item 1): the Apache-2.0 text at the root, declared in the package
metadata, and docs/licenses.md in step with the licences the installed dependencies declare."""

import hashlib
import os
import sys

import licences
from conftest import ROOT

import worker

APACHE_2_MD5 = "3b83ef96387f14655fc854ddc3c6bd57"  # LICENSE-2.0.txt as the Apache Software Foundation publishes it


def test_license_is_the_full_apache_2_text():
    with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
        text = f.read()
    assert hashlib.md5(text).hexdigest() == APACHE_2_MD5
    assert b"Apache License\n                           Version 2.0, January 2004" in text


def test_the_package_metadata_declares_it():
    if sys.version_info < (3, 11):
        import pytest

        pytest.skip("tomllib is Python 3.11's")
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)["project"]
    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE", "NOTICE"]
    assert "version" in project["dynamic"]  # read from worker.__version__ by bootstrap/build_backend.py
    sys.path.insert(0, os.path.join(ROOT, "bootstrap"))
    import build_backend

    assert build_backend.version() == worker.__version__
    assert build_backend.LICENSE == project["license"] and list(build_backend.LICENSE_FILES) == project["license-files"]
    assert "License-Expression: Apache-2.0" in build_backend.metadata()
    for name in project["license-files"]:
        assert os.path.isfile(os.path.join(ROOT, name)), name


def test_docs_licenses_lists_what_the_installed_dependencies_declare():
    with open(os.path.join(ROOT, "docs", "licenses.md"), encoding="utf-8") as f:
        text = f.read()
    assert licences.table() in text, "docs/licenses.md is out of date: run .venv-dev/bin/python tests/licences.py"
    # The benchmark data and their terms are named, WCXB with its attribution.
    for needle in ("CC-BY-4.0", "Murrough Foley", "Scrapinghub", "Bevendorff"):
        assert needle in text
    names = {row[0] for row in licences.rows()}
    assert {"ddgs", "exa-py", "trafilatura", "readability-lxml", "lxml", "pypdf", "mcp"} <= names
