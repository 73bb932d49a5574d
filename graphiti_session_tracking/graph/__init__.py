"""The graph: the contract (labels, relations, uuids), the backends and their dialects, the
mapping of a summary to Graphiti nodes and edges, the writer, the canned queries and search."""
