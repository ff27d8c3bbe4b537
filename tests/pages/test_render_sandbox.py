"""Chromium's sandbox stays on where it can run (issue 44): the choice of flags, without a browser.
tests/pages/test_render.py starts real browsers both ways."""

from worker.pages.render import browser


def test_the_sandbox_is_on_unless_the_worker_runs_as_root(monkeypatch):
    assert "--no-sandbox" not in browser.FLAGS
    monkeypatch.setattr(browser.os, "geteuid", lambda: 1000)
    assert browser.sandbox_possible() is True
    monkeypatch.setattr(browser.os, "geteuid", lambda: 0)
    assert browser.sandbox_possible() is False


def test_no_sandbox_is_on_the_command_line_only_when_asked():
    on = browser.arguments("/usr/bin/chromium", "/tmp/p", "127.0.0.1:8", sandbox=True)
    off = browser.arguments("/usr/bin/chromium", "/tmp/p", "127.0.0.1:8", sandbox=False)
    assert "--no-sandbox" not in on and off.count("--no-sandbox") == 1
    assert [a for a in off if a != "--no-sandbox"] == on
    assert on[0] == "/usr/bin/chromium" and on[-1] == "about:blank" and "--remote-debugging-pipe" in on


def test_what_chromium_says_without_a_sandbox_is_recognised(tmp_path):
    said = {
        "No usable sandbox! Update your kernel or see https://chromium.googlesource.com/...": True,
        "Running as root without --no-sandbox is not supported. See https://crbug.com/638180.": True,
        "Failed to connect to the bus: Could not parse server address": False,
    }
    for line, refused in said.items():
        b = browser.Browser.__new__(browser.Browser)  # its stderr only: no process
        b.profile, b.sandbox = str(tmp_path), True
        (tmp_path / browser.STDERR_LOG).write_text("[1:1:ERROR:x.cc(1)] earlier line\n[1:1:FATAL:y.cc(2)] %s\n" % line)
        assert b.sandbox_refused() is refused, line
        b.sandbox = False  # a browser already without its sandbox has none to refuse
        assert b.sandbox_refused() is False
