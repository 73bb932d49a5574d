"""`graphiti-sessions view`: a read-only local web page over the session graph (docs/view.md)."""
