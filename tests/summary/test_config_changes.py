"""config_changes from the edits themselves: setting, old and new value, file, reason."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import TRANSCRIPTS
from transcript_builder import TranscriptBuilder

from graphiti_session_tracking.summary.config_changes import (
    REMOVED,
    config_parser,
    extract_config_changes,
    parse_toml,
    parse_yaml,
)
from graphiti_session_tracking.summary.model import ConfigChange
from graphiti_session_tracking.transcripts import read_transcript

PYPROJECT = """[project]
name = "app"
dependencies = [
    "httpx>=0.27",
]

[tool.ruff]
line-length = 88
target-version = "py312"
"""


def test_env_value_change_with_its_reason(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Sessions expire after a minute, fix it.")
    t.edit(
        ".env",
        "JWT_EXPIRY=60",
        "JWT_EXPIRY=3600",
        original="DEBUG=false\nJWT_EXPIRY=60\n",
        text="The expiry is read as seconds, not minutes. I'll set it to 3600 because it was 60 seconds.",
    )

    assert extract_config_changes(t.read(tmp_path)) == [
        ConfigChange(
            file=".env",
            setting="JWT_EXPIRY",
            old_value="60",
            new_value="3600",
            reason="I'll set it to 3600 because it was 60 seconds.",
        )
    ]


def test_pyproject_section_comes_from_the_whole_file(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Use 110 columns.")
    t.edit("pyproject.toml", "line-length = 88", "line-length = 110", original=PYPROJECT)

    [change] = extract_config_changes(t.read(tmp_path))

    assert (change.file, change.setting, change.old_value, change.new_value, change.reason) == (
        "pyproject.toml",
        "tool.ruff.line-length",
        "88",
        "110",
        "",
    )


def test_toml_fragment_without_the_file_uses_the_section_it_shows(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Bump the limit.")
    t.edit("/p/config/app.toml", "[server]\nport = 8000", "[server]\nport = 9000\nworkers = 4")

    changes = extract_config_changes(t.read(tmp_path))

    assert [(c.file, c.setting, c.old_value, c.new_value) for c in changes] == [
        ("config/app.toml", "server.port", "8000", "9000"),
        ("config/app.toml", "server.workers", None, "4"),
    ]


def test_yaml_nested_key(tmp_path: Path) -> None:
    original = "services:\n  web:\n    image: nginx:1.25\n    ports:\n      - 8080:80\n  db:\n    image: postgres:15\n"
    t = TranscriptBuilder()
    t.user("Upgrade postgres.")
    t.edit("docker-compose.yml", "image: postgres:15", "image: postgres:16", original=original)

    [change] = extract_config_changes(t.read(tmp_path))

    assert (change.setting, change.old_value, change.new_value) == (
        "services.db.image",
        "postgres:15",
        "postgres:16",
    )


COMPOSE = "services:\n  web:\n    image: nginx:1.25\n  db:\n    image: postgres:15\n"


def test_a_fragment_edit_of_a_file_a_command_showed_whole_gets_its_parents(tmp_path: Path) -> None:
    """Codex and Gemini read files with `cat` or `sed -n '1,Np'` and edit fragments: the file as
    shown is what the edit applies to, and later edits apply to what the earlier ones made."""
    t = TranscriptBuilder()
    t.user("Upgrade postgres, then nginx.")
    t.bash("sed -n '1,200p' docker-compose.yml", COMPOSE)
    t.edit("docker-compose.yml", "    image: postgres:15", "    image: postgres:16")
    t.edit("docker-compose.yml", "    image: nginx:1.25", "    image: nginx:1.27")

    changes = extract_config_changes(t.read(tmp_path))

    assert [(c.setting, c.old_value, c.new_value) for c in changes] == [
        ("services.web.image", "nginx:1.25", "nginx:1.27"),
        ("services.db.image", "postgres:15", "postgres:16"),
    ]


def test_a_part_of_a_file_or_a_mix_of_files_is_never_taken_for_the_file(tmp_path: Path) -> None:
    first_lines = "services:\n  web:\n"  # `sed` stopped where it was told to: not the whole file
    for command, output in (
        ("sed -n '1,2p' docker-compose.yml", first_lines),
        ("cat docker-compose.yml other.yml", COMPOSE + "x: 1\n"),
        ("cat docker-compose.yml | head -3", COMPOSE),
        ("cd deploy && cat docker-compose.yml", COMPOSE),
        (
            "cat docker-compose.yml",
            "services:\n[... omitted 2 of 5 lines ...]\n  db:\n    image: postgres:15\n",
        ),
    ):
        t = TranscriptBuilder()
        t.bash(command, output)
        t.edit("docker-compose.yml", "    image: postgres:15", "    image: postgres:16")

        [change] = extract_config_changes(t.read(tmp_path))

        assert change.setting == "image", command  # the fragment alone: no parents known


def test_a_read_tool_that_returns_the_file_as_written_shows_it_whole(tmp_path: Path) -> None:
    """Gemini CLI's read_file returns the file's text as it is; a numbered listing (Claude Code's
    `1→`) or a read of a part is not the file."""
    for read_input, output, setting in (
        ({"file_path": "/p/docker-compose.yml"}, COMPOSE, "services.db.image"),
        ({"file_path": "/p/docker-compose.yml", "offset": 3}, COMPOSE, "image"),
        (
            {"file_path": "/p/docker-compose.yml"},
            "".join(f"{n:6}→{line}\n" for n, line in enumerate(COMPOSE.splitlines(), 1)),
            "image",
        ),
    ):
        t = TranscriptBuilder()
        t.call("Read", read_input, output)
        t.edit("docker-compose.yml", "    image: postgres:15", "    image: postgres:16")

        [change] = extract_config_changes(t.read(tmp_path))

        assert change.setting == setting, read_input


def test_an_edit_that_does_not_fit_the_shown_text_keeps_to_its_fragment(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.bash("cat docker-compose.yml", COMPOSE)
    t.edit("docker-compose.yml", "    image: redis:7", "    image: redis:8")  # changed since it was shown

    [change] = extract_config_changes(t.read(tmp_path))

    assert (change.setting, change.old_value, change.new_value) == ("image", "redis:7", "redis:8")


def test_package_json_dependency_version(tmp_path: Path) -> None:
    before = json.dumps({"name": "web", "dependencies": {"lodash": "^4.17.20", "react": "^18.2.0"}}, indent=2)
    t = TranscriptBuilder()
    t.user("Patch the lodash advisory.")
    t.edit(
        "package.json",
        '"lodash": "^4.17.20"',
        '"lodash": "^4.17.21"',
        original=before,
        text="Bumping lodash to fix the prototype pollution advisory.",
    )

    [change] = extract_config_changes(t.read(tmp_path))

    assert change == ConfigChange(
        file="package.json",
        setting="dependencies.lodash",
        old_value="^4.17.20",
        new_value="^4.17.21",
        reason="Bumping lodash to fix the prototype pollution advisory.",
    )


def test_new_env_file_has_no_old_values(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Add an env file.")
    t.write(
        ".env.example", "# settings\nexport DATABASE_URL=postgres://localhost/app\nSECRET_KEY='changeme'\n"
    )

    changes = extract_config_changes(t.read(tmp_path))

    assert [(c.file, c.setting, c.old_value, c.new_value) for c in changes] == [
        (".env.example", "DATABASE_URL", None, "postgres://localhost/app"),
        (".env.example", "SECRET_KEY", None, "changeme"),
    ]


def test_overwritten_file_is_diffed_against_its_original(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Rewrite the config.")
    t.write(
        "settings.ini",
        "[app]\ndebug = false\nport = 80\n",
        original="[app]\ndebug = true\nport = 80\nlegacy = 1\n",
    )

    changes = extract_config_changes(t.read(tmp_path))

    assert [(c.setting, c.old_value, c.new_value) for c in changes] == [
        ("app.debug", "true", "false"),
        ("app.legacy", "1", REMOVED),
    ]


def test_repeated_changes_merge_and_reverted_ones_vanish(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Tune it.")
    t.edit(".env", "WORKERS=2", "WORKERS=4")
    t.edit(".env", "WORKERS=4", "WORKERS=8")
    t.edit(".env", "DEBUG=false", "DEBUG=true")
    t.edit(".env", "DEBUG=true", "DEBUG=false")

    assert [(c.setting, c.old_value, c.new_value) for c in extract_config_changes(t.read(tmp_path))] == [
        ("WORKERS", "2", "8")
    ]


def test_failed_edits_and_non_config_files_are_ignored(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Change things.")
    t.call(
        "Edit",
        {"file_path": "/p/.env", "old_string": "A=1", "new_string": "A=2"},
        "<tool_use_error>String to replace not found in file.</tool_use_error>",
        is_error=True,
    )
    t.edit("src/app.py", "TIMEOUT = 1", "TIMEOUT = 2")
    t.edit("Makefile", "test:\n\tpytest", "test:\n\tpytest -x")

    assert extract_config_changes(t.read(tmp_path)) == []


def test_long_values_are_cut(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Set the key.")
    t.write(".env", "PUBLIC_KEY=" + "A" * 500 + "\n")

    [change] = extract_config_changes(t.read(tmp_path))

    assert change.new_value is not None and len(change.new_value) == 200 and change.new_value.endswith("…")


def test_requirements_and_dockerfile(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Pin and upgrade.")
    t.edit("requirements.txt", "requests\nflask==2.3.0", "requests==2.32.3\nflask==3.0.0")
    t.edit("Dockerfile", "FROM python:3.11-slim\nENV PORT=8000", "FROM python:3.12-slim\nENV PORT=8080")

    assert [
        (c.file, c.setting, c.old_value, c.new_value) for c in extract_config_changes(t.read(tmp_path))
    ] == [
        ("requirements.txt", "requests", "*", "==2.32.3"),
        ("requirements.txt", "flask", "==2.3.0", "==3.0.0"),
        ("Dockerfile", "FROM", "python:3.11-slim", "python:3.12-slim"),
        ("Dockerfile", "ENV PORT", "8000", "8080"),
    ]


def test_real_cargo_toml_edit() -> None:
    """python-to-rust-port adds `[lints.rust] missing_docs = "warn"` to Cargo.toml."""
    session = read_transcript(TRANSCRIPTS / "python-to-rust-port.jsonl")

    assert extract_config_changes(session) == [
        ConfigChange(file="Cargo.toml", setting="lints.rust.missing_docs", old_value=None, new_value="warn")
    ]


def test_real_gitignore_edit_gives_each_pattern_with_its_reason() -> None:
    session = read_transcript(TRANSCRIPTS / "coverage-test-fix.jsonl")
    assert any(c.name == "Edit" and c.input["file_path"].endswith(".gitignore") for c in session.tool_calls)

    changes = extract_config_changes(session)
    assert [(c.file, c.setting, c.old_value, c.new_value) for c in changes] == [
        (".gitignore", "__pycache__/", None, "__pycache__/"),
        (".gitignore", "*.pyc", None, "*.pyc"),
        (".gitignore", ".coverage", None, ".coverage"),
    ]
    assert all("generated files that shouldn't be tracked" in (c.reason or "") for c in changes)


def test_ignore_files_a_few_patterns_each_never_a_whole_list(tmp_path: Path) -> None:
    """A pattern is read whole (its dots and brackets are not a dotted setting); a created or
    rewritten list of patterns is left to files_modified: no one row says it."""
    t = TranscriptBuilder()
    t.user("Ignore the build output.")
    t.edit(".gitignore", "node_modules/\n*.log", "node_modules/\n*.py[cod]\n# build\ndist/")
    t.edit(".dockerignore", "a\nb", "a\nb\nc\nd\ne\nf")  # four at once
    t.write("web/.npmignore", "src/\ntests/\n")  # created

    assert [
        (c.file, c.setting, c.old_value, c.new_value) for c in extract_config_changes(t.read(tmp_path))
    ] == [
        (".gitignore", "*.py[cod]", None, "*.py[cod]"),
        (".gitignore", "dist/", None, "dist/"),
        (".gitignore", "*.log", "*.log", "(removed)"),
    ]


def test_parsers_on_their_own() -> None:
    assert parse_toml(PYPROJECT) == {
        "project.name": "app",
        "project.dependencies": '["httpx>=0.27"]',
        "tool.ruff.line-length": "88",
        "tool.ruff.target-version": "py312",
    }
    workflow = "jobs:\n  test:\n    steps:\n    - uses: actions/checkout@v4\n    - run: pytest  # all\n      env:\n        CI: 'true'\n"
    assert parse_yaml(workflow) == {
        "jobs.test.steps[0].uses": "actions/checkout@v4",
        "jobs.test.steps[1].run": "pytest",
        "jobs.test.steps[1].env.CI": "true",
    }
    assert config_parser("/x/Makefile") is None and config_parser("/x/package-lock.json") is None
    assert config_parser("/x/setup.cfg") is not None and config_parser("/x/.env.local") is not None


def test_a_list_is_compared_as_a_set_of_items() -> None:
    from graphiti_session_tracking.summary.config_changes import diff_settings, parse_yaml

    before = "scan:\n  - type: bandit\n  - type: semgrep\n  - type: trivy\n  - type: gitleaks\n"
    after = "scan:\n  - type: bandit\n  - type: trivy\n  - type: gitleaks\n"  # semgrep commented out
    assert list(diff_settings(parse_yaml(before), parse_yaml(after))) == [("scan", None, "removed semgrep")]
    same_items_reordered = "scan:\n  - type: trivy\n  - type: bandit\n  - type: semgrep\n  - type: gitleaks\n"
    assert list(diff_settings(parse_yaml(before), parse_yaml(same_items_reordered))) == []


def test_a_list_item_that_keeps_its_name_is_changed_in_place() -> None:
    from graphiti_session_tracking.summary.config_changes import diff_settings, parse_yaml

    before = (
        "steps:\n  - name: Package deps\n    run: GOMODCACHE=$PWD/cache tar -acf deps.tar cache\n"
        "  - name: Lint\n    run: make lint\n"
    )
    after = (
        "steps:\n  - name: Package deps\n    run: GOMODCACHE=$RUNNER_TEMP/cache tar -acf deps.tar -C $RUNNER_TEMP cache\n"
        "  - name: Test\n    run: make test\n"
    )
    assert list(diff_settings(parse_yaml(before), parse_yaml(after))) == [
        (
            "steps",
            None,
            "added Test; removed Lint; changed Package deps: run=GOMODCACHE=$RUNNER_TEMP/cache tar -acf deps.tar -C"
            " $RUNNER_TEMP cache",
        )
    ]


def test_a_new_block_is_one_record_and_a_single_new_setting_stays_itself() -> None:
    from graphiti_session_tracking.summary.config_changes import diff_settings, parse_yaml

    before = "project: app\n"
    after = "project: app\nbrews:\n  - name: app\n    homepage: https://x\n    license: MIT\nenv: prod\n"
    assert list(diff_settings(parse_yaml(before), parse_yaml(after))) == [
        ("brews", None, "added app"),
        ("env", None, "prod"),
    ]
    nested = "jobs:\n  test:\n    runs-on: ubuntu\n"
    more = nested + "  lint:\n    runs-on: ubuntu\n    timeout-minutes: 5\n"
    assert list(diff_settings(parse_yaml(nested), parse_yaml(more))) == [
        ("jobs.lint", None, "runs-on=ubuntu; timeout-minutes=5")
    ]


def test_only_configuration_files_count(tmp_path: Path) -> None:
    from graphiti_session_tracking.summary.config_changes import config_parser

    assert config_parser("/p/package.json") is not None
    assert config_parser("/p/tsconfig.build.json") is not None
    assert config_parser("/p/.github/workflows/ci.yml") is not None
    assert config_parser("/p/.github/ISSUE_TEMPLATE/config.yml") is not None
    assert config_parser("/p/.github/ISSUE_TEMPLATE/bug_report.yml") is None
    assert config_parser("/p/plan.json") is None  # data, whatever its format
    assert config_parser("/p/postman_collection.json") is None
    assert config_parser("/p/tests/fixtures/settings.yaml") is None
    assert config_parser("/p/docs/example.toml") is None


def test_a_new_requirements_file_is_one_change(tmp_path: Path) -> None:
    builder = TranscriptBuilder(cwd="/p")
    builder.user("Add dev requirements")
    builder.call(
        "Write",
        {"file_path": "/p/requirements-dev.txt", "content": "pytest>=8\nblack\nmypy\n"},
        "File created successfully",
        structured={
            "type": "create",
            "filePath": "/p/requirements-dev.txt",
            "content": "pytest>=8\nblack\nmypy\n",
        },
    )
    changes = extract_config_changes(builder.read(tmp_path))
    assert [(c.file, c.setting, c.new_value) for c in changes] == [
        ("requirements-dev.txt", "dependencies", "3 packages: pytest, black, mypy")
    ]


def test_a_new_job_with_its_steps_is_one_record() -> None:
    """The job's step list came with the job: no second record for the steps alone."""
    from graphiti_session_tracking.summary.config_changes import diff_settings, parse_yaml

    before = "jobs:\n  test:\n    runs-on: ubuntu\n"
    after = (
        before
        + "  build:\n    runs-on: ubuntu\n    steps:\n      - uses: actions/checkout@v4\n      - run: make\n"
    )
    assert list(diff_settings(parse_yaml(before), parse_yaml(after))) == [
        ("jobs.build", None, "runs-on=ubuntu; steps[0].uses=actions/checkout@v4; steps[1].run=make")
    ]


def test_each_entry_added_to_a_map_is_its_own_setting() -> None:
    """One row per setting, as a careful reader writes them down: two new dependencies are two
    settings, each with its version (a new file is summarized per top-level setting instead)."""
    from graphiti_session_tracking.summary.config_changes import diff_settings, parse_json

    before = json.dumps({"devDependencies": {"nodemon": "^3.1.10"}})
    after = json.dumps(
        {"devDependencies": {"nodemon": "^3.1.10", "@types/node": "^22.0.0", "typescript": "^5.5.0"}}
    )
    assert list(diff_settings(parse_json(before), parse_json(after))) == [
        ("devDependencies.@types/node", None, "^22.0.0"),
        ("devDependencies.typescript", None, "^5.5.0"),
    ]


def test_a_file_created_then_edited_is_summarized_once_per_top_level_setting(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Add a CI workflow.")
    workflow = "name: Tests\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu\n    steps:\n      - run: pytest\n"
    t.write(".github/workflows/test.yml", workflow)
    t.edit(
        ".github/workflows/test.yml",
        "      - run: pytest\n",
        "      - run: pip install -e .\n      - run: pytest\n",
        original=workflow,
        text="The tests import the package. I'll install it first because pytest runs from a clean checkout.",
    )

    changes = extract_config_changes(t.read(tmp_path))

    # each row with the reason said for the edit that changed it: none was said for the others
    assert [(c.setting, c.old_value, c.reason) for c in changes] == [
        ("name", None, ""),
        ("on.push.branches", None, ""),
        ("jobs", None, "I'll install it first because pytest runs from a clean checkout."),
    ]


def test_a_new_toml_file_is_one_record_per_table(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Add tool settings.")
    t.write(
        "pyproject.toml",
        '[tool.black]\nline-length = 100\ntarget-version = ["py311"]\n\n'
        '[tool.mypy]\npython_version = "3.11"\nwarn_return_any = true\n\n'
        '[tool.coverage.run]\nsource = ["scripts"]\nbranch = true\n',
    )

    changes = extract_config_changes(t.read(tmp_path))

    assert [(c.setting, c.new_value) for c in changes] == [
        ("tool.black", 'line-length=100; target-version=["py311"]'),
        ("tool.mypy", "python_version=3.11; warn_return_any=true"),
        ("tool.coverage.run", 'source=["scripts"]; branch=true'),
    ]


def test_whole_files_are_read_by_their_formats_library_and_fragments_by_lines() -> None:
    from graphiti_session_tracking.summary.config_changes import parse_ini

    workflow = "on:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu\n    continue-on-error: yes\n"
    assert parse_yaml(workflow) == {
        "on.push.branches": '["main"]',
        "jobs.test.runs-on": "ubuntu",
        "jobs.test.continue-on-error": "yes",  # YAML 1.2: only true/false are booleans
    }
    toml = parse_toml('[tool.ruff]\nline-length = 100\n[tool.ruff.lint]\nselect = ["E", "F"]\n')
    assert toml == {"tool.ruff.line-length": "100", "tool.ruff.lint.select": '["E", "F"]'}
    assert toml.sections == {"tool.ruff", "tool.ruff.lint"}
    assert parse_toml("line-length = 100\n[broken") == {"line-length": "100"}  # the line scan
    assert parse_ini("[flake8]\nMax-Line-Length = 100\n") == {"flake8.Max-Line-Length": "100"}
    assert parse_ini("root = true\n[*.py]\nindent_size = 4\n") == {"root": "true", "*.py.indent_size": "4"}


def test_a_new_block_names_its_values_and_a_maven_dependency_is_one_setting(tmp_path: Path) -> None:
    """A reader writes a new block down with its values, not as "N settings: a, b"; a pom.xml
    dependency added or bumped is one row keyed by its coordinates."""
    pom = (
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><artifactId>app</artifactId><version>1.0</version>'
        "<properties><java.version>17</java.version></properties><dependencies>"
        "<dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>2.0.9</version></dependency>"
        "</dependencies></project>"
    )
    bumped = pom.replace("2.0.9", "2.0.13").replace(
        "</dependencies>",
        "<dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId><version>33.0.0-jre</version>"
        "</dependency></dependencies>",
    )
    t = TranscriptBuilder()
    t.user("Bump the logging library and add guava.")
    t.edit("pom.xml", pom, bumped, original=pom)
    t.write(".claude-plugin/plugin.json", '{"name": "demo", "version": "0.1.0", "author": {"name": "Ann"}}')
    changes = {
        (c.file, c.setting): (c.old_value, c.new_value) for c in extract_config_changes(t.read(tmp_path))
    }
    assert changes[("pom.xml", "dependencies.org.slf4j:slf4j-api")] == ("2.0.9", "2.0.13")
    assert changes[("pom.xml", "dependencies.com.google.guava:guava")] == (None, "33.0.0-jre")
    assert changes[(".claude-plugin/plugin.json", "name")] == (None, "demo")  # a tool's manifest is config
    assert changes[(".claude-plugin/plugin.json", "author.name")] == (None, "Ann")


def test_a_package_managers_add_and_remove_change_its_manifest(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Add the icons and the test helpers.")
    t.bash("cd web", "")  # the agent's shell stays in web/ for the next calls
    t.bash("pnpm add lucide-react 2>&1 | tail -5", "dependencies:\n+ lucide-react 0.542.0\nDone in 1.2s")
    t.bash("npm install -D @testing-library/jest-dom@^6.4.0 vitest > install.log", "added 40 packages")
    t.bash("npm uninstall moment", "removed 1 package")
    t.bash(
        "npm install left-pad",
        "npm ERR! 404 Not Found - GET https://registry.npmjs.org/left-pad",
        is_error=True,
    )
    t.bash("npm install", "up to date")  # installs what the manifest says: no change
    t.bash("cd .. && cargo add serde --features derive", "    Adding serde v1.0.210 to dependencies")
    t.bash("npm install -g pnpm", "added 1 package")  # global: no manifest of the project
    t.bash("cat > setup.sh <<'EOF'\ncd app && npm install left-pad\nEOF", "")  # a script written, not run
    t.bash(
        "npm install is-odd && npm uninstall is-odd", "added 1 package\nremoved 1 package"
    )  # tried, undone

    changes = extract_config_changes(t.read(tmp_path))

    assert [(c.file, c.setting, c.old_value, c.new_value) for c in changes] == [
        ("web/package.json", "dependencies.lucide-react", None, "0.542.0"),
        ("web/package.json", "devDependencies.@testing-library/jest-dom", None, "^6.4.0"),
        ("web/package.json", "devDependencies.vitest", None, "(added)"),
        ("web/package.json", "dependencies.moment", None, REMOVED),
        ("Cargo.toml", "dependencies.serde", None, "1.0.210"),
    ]


def test_an_edit_of_the_manifest_says_more_than_the_command(tmp_path: Path) -> None:
    before = json.dumps({"name": "web", "dependencies": {"react": "^18.2.0"}}, indent=2)
    t = TranscriptBuilder()
    t.user("Add zod.")
    t.bash("npm install zod", "added 1 package")
    t.edit("package.json", '"react": "^18.2.0"', '"react": "^18.2.0",\n    "zod": "^3.23.8"', original=before)

    changes = extract_config_changes(t.read(tmp_path))

    assert [(c.setting, c.new_value) for c in changes] == [("dependencies.zod", "^3.23.8")]


VITEST_CONFIG = """import { defineConfig } from 'vitest/config'
import react from '@vitejs/plugin-react'

// https://vitest.dev/config/
export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'jsdom', // the DOM the components need
    setupFiles: ['./vitest.setup.ts'],
  },
})
"""


def test_a_js_config_modules_exported_object_is_its_settings(tmp_path: Path) -> None:
    """A reader names a vite/tailwind/eslint config's settings by the exported object's keys, and
    a flat config's array or an empty object by the `const` it is exported as."""
    t = TranscriptBuilder()
    t.user("Set up vitest, the next config and eslint.")
    t.write("vitest.config.mts", VITEST_CONFIG)
    t.write(
        "next.config.ts",
        "const nextConfig: NextConfig = {\n  /* config options here */\n};\nexport default nextConfig;\n",
    )
    t.write(
        "eslint.config.mjs",
        'const compat = new FlatCompat({ baseDirectory: __dirname });\n\nconst eslintConfig = [\n  ...compat.extends("next/core-web-vitals"),\n];\n\nexport default eslintConfig;\n',
    )
    t.edit(
        "vitest.config.mts",
        "environment: 'jsdom',",
        "environment: 'happy-dom',",
        original=VITEST_CONFIG.replace("plugins: [react()]", "plugins: [react(), tsconfigPaths()]"),
        text="jsdom lacks the APIs the editor uses, so I'll switch to happy-dom.",
    )
    t.write("src/config.ts", "export default { apiUrl: 'http://localhost' }\n")  # application code

    changes = [
        (c.file, c.setting, c.old_value, c.new_value) for c in extract_config_changes(t.read(tmp_path))
    ]

    assert changes == [
        ("vitest.config.mts", "plugins", None, "[react(), tsconfigPaths()]"),
        ("vitest.config.mts", "test", None, "environment=happy-dom; setupFiles=['./vitest.setup.ts']"),
        ("next.config.ts", "nextConfig", None, "{}"),
        ("eslint.config.mjs", "eslintConfig", None, '[...compat.extends("next/core-web-vitals")]'),
    ]


def test_js_config_forms_and_fragments() -> None:
    from graphiti_session_tracking.summary.config_changes.jsconfig import parse_js_config

    # module.exports, a method, a shorthand, a string key, commas and brackets inside strings
    assert parse_js_config(
        "module.exports = {\n  'test-match': ['**/*.spec.js', 'a,b'],\n  transform() { return {} },\n  verbose,\n};"
    ) == {"test-match": "['**/*.spec.js', 'a,b']", "transform": "(function)", "verbose": "verbose"}
    # an arrow function's destructured parameters are not the config
    assert parse_js_config(
        "export default defineConfig(({ mode }) => ({\n  server: { port: 3000 },\n  build: { sourcemap: mode === 'dev' },\n}))"
    ) == {"server.port": "3000", "build.sourcemap": "mode === 'dev'"}
    # a value as a reader writes it, not as the formatter laid it out
    assert parse_js_config('export default {\n  content: [\n    "./src/**/*.{js,ts}",\n  ],\n}') == {
        "content": '["./src/**/*.{js,ts}"]'
    }
    # webpack's function of its environment, with or without parentheses
    assert parse_js_config("module.exports = (env, argv) => ({ mode: 'production' })") == {
        "mode": "production"
    }
    assert parse_js_config("module.exports = env => ({ devtool: false })") == {"devtool": "false"}
    # an edit's fragment: members whose brackets balance are read, a cut one gives nothing
    assert parse_js_config("  plugins: [react()],\n  server: { port: 5173 },") == {
        "plugins": "[react()]",
        "server.port": "5173",
    }
    assert parse_js_config("  test: {\n    environment: 'jsdom',") == {}
    assert parse_js_config("export default {") == {}


def test_go_mod_and_property_lists(tmp_path: Path) -> None:
    go_mod = (
        "module entire.io/entire/git-sync\n\ngo 1.25.2\n\nrequire (\n"
        "\tgithub.com/spf13/cobra v1.8.0\n\tgolang.org/x/sys v0.20.0 // indirect\n)\n"
    )
    entitlements = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict>\n'
        "\t<key>com.apple.security.cs.allow-jit</key>\n\t<true/>\n</dict>\n</plist>\n"
    )
    t = TranscriptBuilder()
    t.user("Rename the module, move to Go 1.26 and allow unsigned memory for the signed binary.")
    t.edit(
        "go.mod",
        "module entire.io/entire/git-sync\n\ngo 1.25.2",
        "module entire.io/entire/gitsync\n\ngo 1.26.2",
        original=go_mod,
    )
    t.edit(
        "go.mod",
        "\tgolang.org/x/sys v0.20.0 // indirect\n",
        "\tgolang.org/x/sys v0.21.0 // indirect\n\tgithub.com/stretchr/testify v1.9.0\n",
    )
    t.edit(
        "entitlements.plist",
        "\t<true/>\n</dict>",
        "\t<true/>\n\t<key>com.apple.security.cs.allow-unsigned-executable-memory</key>\n\t<true/>\n</dict>",
        original=entitlements,
    )

    changes = [
        (c.file, c.setting, c.old_value, c.new_value) for c in extract_config_changes(t.read(tmp_path))
    ]

    assert changes == [
        ("go.mod", "module", "entire.io/entire/git-sync", "entire.io/entire/gitsync"),
        ("go.mod", "go", "1.25.2", "1.26.2"),
        ("go.mod", "require.golang.org/x/sys", "v0.20.0 (indirect)", "v0.21.0 (indirect)"),
        ("go.mod", "require.github.com/stretchr/testify", None, "v1.9.0"),
        ("entitlements.plist", "com.apple.security.cs.allow-unsigned-executable-memory", None, "true"),
    ]


def test_names_with_dots_are_not_nested_in_a_new_plist_or_go_mod(tmp_path: Path) -> None:
    t = TranscriptBuilder()
    t.user("Add entitlements for the hardened runtime.")
    t.write(
        "entitlements.plist",
        '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict>\n'
        "\t<key>com.apple.security.cs.allow-jit</key>\n\t<true/>\n"
        "\t<key>com.apple.security.cs.allow-unsigned-executable-memory</key>\n\t<true/>\n</dict>\n</plist>\n",
    )
    go_mod = "module example.com/app\n\ngo 1.22\n\nrequire golang.org/x/net v0.1.0\n"
    t.edit(
        "go.mod",
        "require golang.org/x/net v0.1.0\n",
        "require (\n\tgolang.org/x/net v0.1.0\n\tgolang.org/x/sync v0.7.0\n\tgolang.org/x/text v0.16.0\n)\n",
        original=go_mod,
    )

    changes = [(c.file, c.setting, c.new_value) for c in extract_config_changes(t.read(tmp_path))]

    assert changes == [
        ("entitlements.plist", "com.apple.security.cs.allow-jit", "true"),
        ("entitlements.plist", "com.apple.security.cs.allow-unsigned-executable-memory", "true"),
        ("go.mod", "require.golang.org/x/sync", "v0.7.0"),
        ("go.mod", "require.golang.org/x/text", "v0.16.0"),
    ]
