"""Hosts: the programs that offer the worker to an agent (mcp: an MCP server; pi: the pi extension, TypeScript)."""
