"""The crawl bench's second-site questions (bench/crawl/questions): each answer is quoted once,
verbatim, on its page of the installed documentation, and its chapter root links to that page."""

import json
import os
from html.parser import HTMLParser
from urllib.parse import urldefrag, urljoin

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
QUESTIONS = os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "crawl", "questions")
SITES = {
    "nodejs.jsonl": ("/usr/share/doc/nodejs/api", "nodejs"),
    "valgrind.jsonl": ("/usr/share/doc/valgrind/html", "valgrind"),
    "postgresql.jsonl": ("/usr/share/doc/postgresql-doc-15/html", "postgresql-doc-15"),
    "drf.jsonl": ("/usr/share/doc/python3-djangorestframework/html", "python-djangorestframework-doc"),
    "sqlite.jsonl": ("/usr/share/doc/sqlite3", "sqlite3-doc"),
    "git.jsonl": ("/usr/share/doc/git-doc", "git-doc"),
    "cmake.jsonl": ("/usr/share/doc/cmake-data/html", "cmake-doc"),
    "httpd.jsonl": ("/usr/share/doc/apache2-doc/manual/en", "apache2-doc"),
    "typer.jsonl": ("/usr/share/doc/python-typer-doc/html", "python-typer-doc"),
    "markdown.jsonl": ("/usr/share/doc/python-markdown-doc/docs", "python-markdown-doc"),
    "pytest.jsonl": ("/usr/share/doc/python-pytest-doc/html", "python-pytest-doc"),
}
KEYS = {"site", "page", "chapter_root", "question", "answer", "answer_pages", "kind"}


class _Page(HTMLParser):
    """A page's visible text and its links, with the standard library (no worker code)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.hrefs, self.skip = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.hrefs.append(href)

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def _page(url):
    """The page a link names: a folder's is its index.html (an MkDocs site links ``fields/``)."""
    url = urldefrag(url)[0]
    return url + "index.html" if url.endswith("/") else url


def _read(path):
    page = _Page()
    with open(path, encoding="utf-8", errors="replace") as f:
        page.feed(f.read())
    return " ".join("".join(page.parts).split()), page.hrefs


@pytest.mark.parametrize("name", sorted(SITES))
def test_each_answer_is_quoted_once_on_its_page_and_its_chapter_links_there(name):
    with open(os.path.join(QUESTIONS, name), encoding="utf-8") as f:
        questions = [json.loads(line) for line in f if line.strip()]
    assert questions and all(set(q) == KEYS for q in questions)
    root, package = SITES[name]
    if not os.path.isdir(root):
        pytest.skip("%s is missing (Debian's %s package installs it): answers not checked" % (root, package))
    for q in questions:
        text, _ = _read(os.path.join(root, q["page"]))
        assert text.count(q["answer"]) == 1, (q["page"], q["answer"])
        _, hrefs = _read(os.path.join(root, q["chapter_root"]))
        linked = {_page(urljoin("http://h/" + q["chapter_root"], h)) for h in hrefs}
        assert "http://h/" + q["page"] in linked, (q["chapter_root"], q["page"])
