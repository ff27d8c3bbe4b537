"""Finding the config file: ``--config PATH``, else ``$WEBSEARCH_CONFIG``, else
``$XDG_CONFIG_HOME/websearch-worker/config.json`` (``~/.config/...`` without it), else the
old pi location ``~/.pi/agent/web-search.json`` when only that one exists; and what
``--help`` says of it.  No I/O beyond a few lstat calls: reading the file is schema.py's.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from collections.abc import Mapping

    from ..request import Request

ENV_PATH = "WEBSEARCH_CONFIG"
DEFAULT_PATH = "$XDG_CONFIG_HOME/websearch-worker/config.json"  # as --help and messages name it
LEGACY_PATH = "~/.pi/agent/web-search.json"  # the first host's folder, read for the users who set it up there
LOOKUP = "--config, else $%s, else %s (~/.config/... without $XDG_CONFIG_HOME), else the old %s" % (
    ENV_PATH,
    DEFAULT_PATH,
    LEGACY_PATH,
)


def default_path(environ: Mapping[str, str] | None = None) -> str:
    """$XDG_CONFIG_HOME/websearch-worker/config.json; ~/.config/... when it is unset or not absolute
    (the XDG Base Directory rules: a relative value is to be ignored)."""
    environ = os.environ if environ is None else environ
    base = environ.get("XDG_CONFIG_HOME") or ""
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "websearch-worker", "config.json")


def lookup(request: Request | None = None, environ: Mapping[str, str] | None = None) -> tuple[str, bool, str | None]:
    """(path, explicit, passed over): --config (the request's ``config``) wins, then $WEBSEARCH_CONFIG,
    then the XDG location, then the old pi location when only that one exists; ``passed over`` is the
    old file when both of the last two exist (the XDG one is read).  No I/O beyond two lstat calls."""
    explicit = request.config if request is not None else None
    if explicit:
        return os.path.abspath(os.path.expanduser(explicit)), True, None
    environ = os.environ if environ is None else environ
    env = environ.get(ENV_PATH)
    if env:
        return os.path.abspath(os.path.expanduser(env)), False, None
    path, legacy = default_path(environ), os.path.expanduser(LEGACY_PATH)
    if not os.path.lexists(legacy):
        return path, False, None
    if not os.path.lexists(path):
        return legacy, False, None
    return path, False, legacy


def config_path(request: Request | None = None, environ: Mapping[str, str] | None = None) -> tuple[str, bool]:
    """(path, explicit) as ``lookup`` finds them; a file passed over is named on stderr."""
    path, explicit, passed_over = lookup(request, environ)
    if passed_over:
        try:
            sys.stderr.write(
                "websearch-worker: warning: read the config file %s; %s (the old location) is not read: "
                "merge what it holds into the first and remove it\n" % (path, passed_over)
            )
            sys.stderr.flush()
        except Exception:  # a closed stderr is no reason to fail the call
            pass
    return path, explicit


def as_written(path: str, environ: Mapping[str, str] | None = None) -> str:
    """``path`` as a user would write it: ``~/...`` for a file under the home folder, so that
    --help never prints one account's home (nor docs/usage.md, generated from the declarations)."""
    environ = os.environ if environ is None else environ
    home = (environ.get("HOME") or os.path.expanduser("~")).rstrip("/")
    if home and os.path.isabs(home) and path.startswith(home + "/"):
        return "~" + path[len(home) :]
    return path


def help_text(here: bool = True) -> str:
    """What --help says of --config: the order of the lookup, and (``here``) the file it comes to
    here and now, written as the user would (``~/...``).  docs/usage.md takes ``here=False``: which
    file a reader's machine reads is for their own --help to say."""
    if not here:
        return "config file: %s. --help names the file it reads on your machine" % LOOKUP
    path, _, passed_over = lookup()
    state = "exists" if os.path.exists(path) else "absent: the builtins answer"
    extra = "; %s is passed over" % as_written(passed_over) if passed_over else ""
    return "config file: %s. Here: %s (%s%s)" % (LOOKUP, as_written(path), state, extra)
