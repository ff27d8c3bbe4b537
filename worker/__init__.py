"""websearch-worker: web search and web fetch for coding agents, one process per call."""
