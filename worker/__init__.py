"""websearch-worker: web search and web fetch for coding agents, one process per call."""

from __future__ import annotations

__version__ = "0.1.0"
