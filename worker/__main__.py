# Signal handlers come first, before any import that takes time (worker/early.py).
from __future__ import annotations

import os  # noqa: E402

from .early import received as _early
from .startup import tune_gc

tune_gc()  # before the imports, which allocate most of a call's objects
from .main import main  # noqa: E402

# bootstrap/run.py says how it was called, so --help shows the command the user typed.
main(prog=os.environ.get("WEBSEARCH_WORKER_PROG") or "python -m worker", early=_early)
