"""The MCP host (server.py): `bootstrap/run.py mcp` serves web_search and web_fetch over stdio."""
