"""BashAnalyzer on real command lines: parsing, compound commands, and what each is for."""

from __future__ import annotations

import pytest

from graphiti_session_tracking.tools import BashAnalyzer, ToolDomain, ToolIntent
from graphiti_session_tracking.tools.bash import split_segments, strip_heredocs, tokenize

analyzer = BashAnalyzer()

I, D = ToolIntent, ToolDomain  # noqa: E741 - short names keep the table readable


@pytest.mark.parametrize(
    ("command", "base", "sub", "intent", "domain"),
    [
        ("pytest tests/ -v --cov=src", "pytest", None, I.VALIDATE, D.TESTING),
        ("python -m pytest tests/test_math_utils.py -v", "pytest", None, I.VALIDATE, D.TESTING),
        ("python3 -m pip install -e '.[dev]'", "pip", "install", I.CONFIGURE, D.PACKAGE),
        ("uv run pytest -q", "pytest", None, I.VALIDATE, D.TESTING),
        ("uv pip install ruff", "uv", "pip install", I.CONFIGURE, D.PACKAGE),
        ("uv sync --all-extras", "uv", "sync", I.CONFIGURE, D.PACKAGE),
        ("poetry run mypy .", "mypy", None, I.VALIDATE, D.CODE),
        ("poetry add httpx", "poetry", "add", I.CONFIGURE, D.PACKAGE),
        ("npx jest --watch", "jest", None, I.VALIDATE, D.TESTING),
        ("npx tsc --noEmit", "tsc", None, I.VALIDATE, D.CODE),
        ("pnpm run test:unit", "pnpm", "test:unit", I.VALIDATE, D.TESTING),
        ("yarn test", "yarn", "test", I.VALIDATE, D.TESTING),
        ("yarn lint", "yarn", "lint", I.VALIDATE, D.CODE),
        ("npm run build", "npm", "build", I.EXECUTE, D.CODE),
        ("npm test", "npm", "test", I.VALIDATE, D.TESTING),
        ("npm ci", "npm", "ci", I.CONFIGURE, D.PACKAGE),
        ("git commit -m 'Fix the parser'", "git", "commit", I.CREATE, D.VERSION_CONTROL),
        ("git push origin main", "git", "push", I.COMMUNICATE, D.VERSION_CONTROL),
        ("git status", "git", "status", I.READ, D.VERSION_CONTROL),
        ("git log --oneline -3", "git", "log", I.READ, D.VERSION_CONTROL),
        ("git --no-pager -C repo diff HEAD~1", "git", "diff", I.READ, D.VERSION_CONTROL),
        ("git branch", "git", "branch", I.READ, D.VERSION_CONTROL),
        ("git tag --contains 8798445 --sort=version:refname", "git", "tag", I.READ, D.VERSION_CONTROL),
        ("git tag v1.2.0 8798445", "git", "tag", I.CREATE, D.VERSION_CONTROL),
        (  # inline code that writes a file is an edit; reading one stays a run of code
            "python3 - <<'PY'\nfrom pathlib import Path\np = Path('a.sh')\np.write_bytes(p.read_bytes())\nPY",
            "python",
            None,
            I.MODIFY,
            D.CODE,
        ),
        ("node -e \"require('fs').writeFileSync('a.txt', 'b')\"", "node", None, I.MODIFY, D.CODE),
        ("python3 -c \"print(open('a.txt').read())\"", "python", None, I.EXECUTE, D.CODE),
        ("git checkout -b feature", "git", "checkout", I.MODIFY, D.VERSION_CONTROL),
        ("gh pr create --title x --body y", "gh", "pr create", I.COMMUNICATE, D.VERSION_CONTROL),
        ("gh pr view 12", "gh", "pr view", I.READ, D.VERSION_CONTROL),
        ("cargo add serde", "cargo", "add", I.CONFIGURE, D.PACKAGE),
        ("cargo build --release", "cargo", "build", I.EXECUTE, D.CODE),
        ("cargo test 2>&1", "cargo", "test", I.VALIDATE, D.TESTING),
        ("cargo llvm-cov --fail-under-lines 100 2>&1", "cargo", "llvm-cov", I.VALIDATE, D.TESTING),
        ("cargo +1.96.0 test --no-run", "cargo", "test", I.VALIDATE, D.TESTING),  # another toolchain
        ("rustup run nightly cargo clippy", "cargo", "clippy", I.VALIDATE, D.CODE),
        ("rustup toolchain list", "rustup", "toolchain", I.READ, D.PROCESS),
        ("rustup toolchain install 1.95", "rustup", "toolchain", I.CONFIGURE, D.PACKAGE),
        ("go test ./...", "go", "test", I.VALIDATE, D.TESTING),
        ("go get github.com/x/y@latest", "go", "get", I.CONFIGURE, D.PACKAGE),
        ("go build ./cmd/app", "go", "build", I.EXECUTE, D.CODE),
        ("go install golang.org/x/vuln/cmd/govulncheck@latest", "go", "install", I.CONFIGURE, D.PACKAGE),
        ("mise run check 2>&1 | tail -80", "mise", "check", I.VALIDATE, D.CODE),  # the task, not `run`
        ("mise run test", "mise", "test", I.VALIDATE, D.TESTING),
        ("mise lint:go", "mise", "lint:go", I.VALIDATE, D.CODE),
        ("mise x node@20 -- npm test", "npm", "test", I.VALIDATE, D.TESTING),
        ("mise install", "mise", "install", I.CONFIGURE, D.PACKAGE),
        ("mise run", "mise", "run", I.READ, D.PACKAGE),  # no task: it asks which one
        ("sudo apt-get install -y jq", "apt-get", "install", I.CONFIGURE, D.PACKAGE),
        ("brew install gh", "brew", "install", I.CONFIGURE, D.PACKAGE),
        ("docker compose up -d", "docker", "compose up", I.EXECUTE, D.PROCESS),
        ("docker build -t app .", "docker", "build", I.EXECUTE, D.PROCESS),
        ("docker ps -a", "docker", "ps", I.READ, D.PROCESS),
        ("kubectl get pods -n prod", "kubectl", "get", I.READ, D.PROCESS),
        ("kubectl apply -f deploy.yaml", "kubectl", "apply", I.CONFIGURE, D.PROCESS),
        ("tox -e py312", "tox", "py312", I.VALIDATE, D.TESTING),
        ("nox -s lint", "nox", "lint", I.VALIDATE, D.CODE),
        ("python -m unittest discover", "unittest", None, I.VALIDATE, D.TESTING),
        ("vitest run", "vitest", None, I.VALIDATE, D.TESTING),
        ("ruff check . --fix", "ruff", "check", I.VALIDATE, D.CODE),
        ("ruff format .", "ruff", "format", I.TRANSFORM, D.CODE),
        ("mypy --strict src", "mypy", None, I.VALIDATE, D.CODE),
        ("eslint src --ext .ts", "eslint", None, I.VALIDATE, D.CODE),
        ("flake8", "flake8", None, I.VALIDATE, D.CODE),
        ("make", "make", None, I.EXECUTE, D.CODE),
        ("make -j8 test", "make", "test", I.VALIDATE, D.TESTING),
        ("just lint 2>&1", "just", "lint", I.VALIDATE, D.CODE),
        ("just format 2>&1", "just", "format", I.TRANSFORM, D.CODE),
        ("cmake -S . -B build", "cmake", None, I.EXECUTE, D.CODE),
        ("tsc -p tsconfig.json", "tsc", None, I.EXECUTE, D.CODE),
        ("ls -la", "ls", None, I.READ, D.FILESYSTEM),
        ("cat src/app.py", "cat", None, I.READ, D.CODE),
        ("head -50 README.md", "head", None, I.READ, D.DOCUMENTATION),
        ("tail -f server.log", "tail", None, I.READ, D.FILESYSTEM),
        ("grep -rn TODO src/", "grep", None, I.SEARCH, D.CODE),
        ("rg 'def main' --type py", "rg", None, I.SEARCH, D.CODE),
        ("find . -name '*.py' -newer setup.py", "find", None, I.SEARCH, D.FILESYSTEM),
        ("rm -rf build dist", "rm", None, I.DELETE, D.FILESYSTEM),
        ("mkdir -p src/pkg", "mkdir", None, I.CREATE, D.FILESYSTEM),
        ("touch tests/test_new.py", "touch", None, I.CREATE, D.TESTING),
        ("cp .env.example .env", "cp", None, I.CREATE, D.FILESYSTEM),
        ("mv old.py new.py", "mv", None, I.MODIFY, D.FILESYSTEM),
        ("chmod +x run.sh", "chmod", None, I.CONFIGURE, D.FILESYSTEM),
        ("curl -s https://api.github.com/repos/x/y", "curl", None, I.COMMUNICATE, D.NETWORK),
        ("wget https://example.com/file.tar.gz", "wget", None, I.COMMUNICATE, D.NETWORK),
        ("curl -f http://localhost:8000/health", "curl", None, I.VALIDATE, D.NETWORK),
        ("sed -i 's/foo/bar/g' src/a.py", "sed", None, I.MODIFY, D.CODE),
        ("python manage.py test accounts", "python", "test", I.VALIDATE, D.TESTING),
        ("./scripts/run_tests.sh -v", "run_tests.sh", None, I.VALIDATE, D.TESTING),
        ("bash -c 'npm run build'", "npm", "build", I.EXECUTE, D.CODE),
        ("echo '# Notes' > NOTES.md", "echo", None, I.CREATE, D.DOCUMENTATION),
        ('Get-ChildItem -Path "C:\\src" -Recurse', "Get-ChildItem", None, I.READ, D.FILESYSTEM),
        ('Get-Content -Path "C:\\src\\SKILL.md"', "Get-Content", None, I.READ, D.FILESYSTEM),
        ("Select-String -Pattern TODO -Path *.ps1", "Select-String", None, I.SEARCH, D.CODE),
    ],
)
def test_commands(command: str, base: str, sub: str | None, intent: ToolIntent, domain: ToolDomain) -> None:
    analysis = analyzer.analyze(command)
    result = analysis.classification
    assert not analysis.needs_llm
    assert (result.base_command, result.subcommand) == (base, sub)
    assert (result.intent, result.domain) == (intent, domain)
    assert result.confidence >= 0.5
    assert result.source == "heuristic"
    assert result.raw_command == command
    assert result.activity_signals or intent in (I.READ,)


def test_flags_and_targets_are_kept() -> None:
    result = analyzer.classify("pytest tests/ -v --cov=src")
    assert result.flags == ["-v", "--cov=src"]
    assert result.targets == ["tests/"]
    assert result.activity_signals["testing"] >= 0.8


@pytest.mark.parametrize(
    ("command", "base", "top"),
    [
        ("cd src && pytest -x", "pytest", "testing"),
        ("ls | head", "ls", "exploring"),
        ("FOO=1 BAR=2 pytest -q", "pytest", "testing"),
        ("sudo -u app time nohup npm test", "npm", "testing"),
        ("timeout 120 cargo test 2>&1 | tail -20", "cargo", "testing"),
        ("cargo install cargo-llvm-cov 2>&1 | tail -20", "cargo", "configuring"),
        ("find /tmp/x -type f \\( -name '*.rs' -o -name Cargo.toml \\) | head -20", "find", "exploring"),
        ("chmod +x /tmp/t/hello.sh && /tmp/t/hello.sh", "hello.sh", "building"),
        ("git init && git add test.txt && git status", "git", "configuring"),
        ("make lint || true; echo done", "make", "reviewing"),
        ("for f in *.py; do ruff check $f; done", "ruff", "reviewing"),
        ("env PYTHONPATH=src python -m pytest", "pytest", "testing"),
    ],
)
def test_compound_commands_take_the_most_significant_segment(command: str, base: str, top: str) -> None:
    analysis = analyzer.analyze(command)
    result = analysis.classification
    assert not analysis.needs_llm
    assert result.base_command == base
    signals = result.activity_signals
    assert max(signals, key=lambda k: signals[k]) == top


def test_compound_keeps_other_significant_segments_at_half_weight() -> None:
    result = analyzer.classify("pytest -x && git commit -m 'wip'")
    assert result.base_command == "pytest"
    assert result.activity_signals["testing"] == 0.8
    assert result.activity_signals["building"] == pytest.approx(0.1)


def test_commit_with_heredoc_message() -> None:
    command = (
        "git add src/math_utils.py && git commit -m \"$(cat <<'EOF'\n"
        "Add multiply_numbers, it's tested\n\nCo-Authored-By: Claude <noreply@anthropic.com>\nEOF\n)\""
    )
    result = analyzer.classify(command)
    assert (result.base_command, result.subcommand) == ("git", "commit")
    assert result.confidence >= 0.9


def test_heredoc_body_is_not_parsed() -> None:
    command = "cat > pyproject.toml <<'EOF'\n[project]\nname = \"it's\"\nEOF\nls"
    assert "it's" not in strip_heredocs(command)
    result = analyzer.classify(command)
    assert result.intent == I.CREATE
    assert result.targets == ["pyproject.toml"]
    assert "configuring" in result.activity_signals


def test_tokenize_and_segments() -> None:
    tokens, clean = tokenize("cd src && FOO=1 pytest -x 2>&1 | tail -20; echo $HOME/x")
    assert clean
    segments = split_segments(tokens)
    assert [s.words for s in segments] == [
        ["cd", "src"],
        ["FOO=1", "pytest", "-x"],
        ["tail", "-20"],
        ["echo", "$HOME/x"],
    ]
    assert [s.piped for s in segments] == [False, False, True, False]


def test_unbalanced_quotes_are_parsed_loosely() -> None:
    result = analyzer.classify('grep -rn "unclosed src/')
    assert result.base_command == "grep"
    assert result.intent == I.SEARCH
    assert "loosely" in result.reasoning
    assert 0.5 <= result.confidence < 0.9


def test_unknown_executable_needs_llm() -> None:
    for command in ("frobnicate --fast", "cd x && frobnicate", "frobnicate | head -3"):
        analysis = analyzer.analyze(command)
        assert analysis.needs_llm, command
        assert analysis.unknown_executable == "frobnicate"
        assert analysis.classification.confidence <= 0.4
        assert analysis.classification.base_command == "frobnicate"


def test_unknown_beside_a_significant_command_is_placed() -> None:
    analysis = analyzer.analyze("pytest -q && frobnicate")
    assert not analysis.needs_llm
    assert analysis.classification.base_command == "pytest"
    assert analysis.classification.confidence < 0.9


def test_empty_command() -> None:
    analysis = analyzer.analyze("   ")
    assert not analysis.needs_llm
    assert analysis.classification.confidence <= 0.1


@pytest.mark.parametrize(
    ("command", "reads"),
    [
        ("cd src && sed -n '1,80p' db.ts | head -40", True),
        ("rg -n 'if (error)' src", True),
        ("cat server.log | tail -5", True),
        ("mise run build && git diff --check", False),  # builds: its output can be the work failing
        ("git status", False),  # repository state, not a file
        ("docker logs web", False),  # a container's output: a background process's failures
        ("sed -i 's/a/b/' f.txt", False),
        ("npm test | tail -20", False),
    ],
)
def test_a_line_that_only_reads_files_is_told_from_one_that_works(command: str, reads: bool) -> None:
    assert BashAnalyzer().only_reads_files(command) is reads
