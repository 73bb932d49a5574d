# The two front-door commands (see README):
#   make run   set up, ingest the example sessions (bench/corpus/dev) into an embedded FalkorDB
#              Lite in .demo/, and run README's queries on them
#   make test  set up (Python venv, FalkorDB Lite, the Neo4j test server) and run ruff, mypy, the import-layer contract, pytest
SHELL := /bin/bash
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LOG := $(VENV)/install.log
EXAMPLES := bench/corpus/dev/transcripts
DEMO := GRAPHITI_HOME=$(CURDIR)/.demo $(BIN)/graphiti-sessions
DEMO_DB := --db $(CURDIR)/.demo/sessions.falkordb

.PHONY: setup install run test lint neo4j-test-server graphiti-mcp-server chromium clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@py=$$(scripts/find-python312) && { [ -x $(BIN)/python ] || $$py -m venv $(VENV); }
	@# pip's own output (and FalkorDB Lite's setuptools warnings) go to a log, shown when it fails
	@echo "installing graphiti-sessions into $(VENV); FalkorDB Lite compiles once, about 4 minutes (log: $(LOG))"
	@{ $(BIN)/python -m pip install --quiet --upgrade pip && $(BIN)/python -m pip install -e '.[dev]'; } \
		>$(LOG) 2>&1 || { tail -n 40 $(LOG); echo "install failed: the whole log is $(LOG)"; exit 1; }
	@touch $@
	@echo "installed: $(BIN)/graphiti-sessions"

# One step to Claude Code: the command on PATH (~/.local/bin), the hooks and our MCP server in the
# user's settings (graphiti-sessions setup; SETUP_ARGS="--graphiti-mcp DIR --backend neo4j ..." adds
# the upstream Graphiti MCP server)
install: $(STAMP)
	@mkdir -p $(HOME)/.local/bin
	ln -sf $(CURDIR)/$(BIN)/graphiti-sessions $(HOME)/.local/bin/graphiti-sessions
	$(BIN)/graphiti-sessions setup $(SETUP_ARGS)
	@case ":$$PATH:" in *":$(HOME)/.local/bin:"*) ;; \
		*) echo "note: ~/.local/bin is not on PATH; add it to type graphiti-sessions (the hooks and MCP server do not need it)";; esac

# The README's examples, on real public sessions, in a demo home (.demo/) that leaves ~/.graphiti alone
run: $(STAMP)
	$(DEMO) ingest $(DEMO_DB) $(EXAMPLES)
	$(DEMO) query errors $(DEMO_DB) --text push
	$(DEMO) search $(DEMO_DB) "why was my push refused" --limit 3
	@echo "That graph is .demo/sessions.falkordb. Your own sessions: $(BIN)/graphiti-sessions ingest"

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

# The browser the web view's tests drive (Debian's chromium)
chromium:
	scripts/ensure-chromium

test: lint neo4j-test-server graphiti-mcp-server chromium
	GRAPHITI_TELEMETRY_ENABLED=false $(BIN)/pytest -ra $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) .demo tests/support/neo4j-launcher/target .pytest_cache .mypy_cache .ruff_cache
