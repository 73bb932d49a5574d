"""Sources → summaries → graph: what a run does, owned in one place (the composition root,
`compose.py`, builds it from the config; `ingest`, `watch`, `migrate` and the MCP server are thin
shells over it). Nothing is imported here: a command imports the modules it uses."""
