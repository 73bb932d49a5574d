"""The MCP server: the session graph's questions as tools for agents (a thin shell over the queries)."""
