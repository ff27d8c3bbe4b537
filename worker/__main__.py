import os

from .main import main

# bootstrap/run.py says how it was called, so --help shows the command the user typed.
main(prog=os.environ.get("WEBSEARCH_WORKER_PROG") or "python -m worker")
