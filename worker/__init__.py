"""websearch-worker: web search and web fetch for coding agents, one process per call."""

__version__ = "0.1.0"
