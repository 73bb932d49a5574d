"""Seeded secrets never reach an LLM request or the graph (every property of every node and edge)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from conftest import backend_cli_args
from fake_openai import FakeOpenAI, llm_config
from graph.test_writer import dump
from summary.transcript_builder import TranscriptBuilder

from graphiti_session_tracking.config import GraphConfig
from graphiti_session_tracking.graph.backends import open_backend

SECRETS = {
    "openai": "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3i",
    "aws": "AKIAIOSFODNN7EXAMPLQ",
    "github": "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
    "jwt_secret": "s3cr3t-Value-That-Is-Long-And-Random-9f8e7d",
    "db_password": "hunter2-Pa55word",
    "mcp_token": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "prose_password": "Tr0ub4dor-and-3xyz",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEK3",
    "json_password": "Js0n-Pa55-w0rd-77",
    "mysql_password": "My5ql-r00t-pw",
    "curl_password": "Cur1-pa55w0rd",
    "sshpass_password": "SshP4ss-w0rd-1",
    "yaml_password": "Yaml-Db-Pa55-9",
}


def seeded_transcript(tmp_path: Path) -> Path:
    builder = TranscriptBuilder(cwd="/work/app", session_id="secret-session")
    builder.user(f"Fix the login. My key is {SECRETS['openai']} if you need it.")
    builder.bash(
        f"export OPENAI_API_KEY={SECRETS['openai']} && pytest -q",
        "1 failed in 0.1s\nExit code 1",
        is_error=True,
    )
    builder.say(
        f"The DB URL is postgres://app:{SECRETS['db_password']}@db:5432/app; I decided to rotate "
        f"the JWT secret because it leaked."
    )
    builder.edit(
        "/work/app/.env",
        f"JWT_SECRET={SECRETS['jwt_secret']}\nJWT_EXPIRY=60\n",
        f"JWT_SECRET=rotated-{SECRETS['jwt_secret']}\nJWT_EXPIRY=3600\n",
    )
    builder.call("mcp__zorblax__frobnicate", {"token": SECRETS["mcp_token"], "aws_key": SECRETS["aws"]}, "ok")
    builder.bash("git push https://x:" + SECRETS["github"] + "@github.com/o/r.git", "pushed")
    builder.bash("pytest -q", "3 passed in 0.2s")
    # Forms that reached the graph before: a password said in prose (objective and a task), a bare
    # AWS secret after its key id, a JSON pair in a settings file, passwords given to commands
    # that fail and then work (so they become verifications), a YAML `dbpass:` key.
    builder.user(f"Also migrate the db, and the db password is {SECRETS['prose_password']} on staging")
    builder.call(
        "TodoWrite",
        {
            "todos": [
                {
                    "content": f"Log in with password is {SECRETS['prose_password']} and migrate",
                    "status": "completed",
                    "activeForm": "x",
                }
            ]
        },
        "ok",
    )
    builder.say(f"Using key {SECRETS['aws']} with secret {SECRETS['aws_secret']} for the upload.")
    builder.edit(
        "/work/app/config/settings.json",
        '{\n  "database": {\n    "password": "old-value-1"\n  }\n}',
        f'{{\n  "database": {{\n    "password": "{SECRETS["json_password"]}"\n  }}\n}}',
    )
    for command in (
        f"mysql -uroot -p{SECRETS['mysql_password']} shop < migrate.sql",
        f"curl -u admin:{SECRETS['curl_password']} https://api.example.com/health",
        f"sshpass -p {SECRETS['sshpass_password']} ssh deploy@db ./migrate",
    ):
        builder.bash(command, "ERROR 1045 (28000): Access denied\nExit code 1", is_error=True)
        builder.bash(command, "done")
    builder.edit("/work/app/deploy.yaml", "dbpass: old\n", f"dbpass: {SECRETS['yaml_password']}\n")
    builder.read(tmp_path)  # writes tmp_path/session.jsonl
    return tmp_path / "session.jsonl"


def files_on_disk(*folders: Path) -> dict[Path, bytes]:
    """Every file under the folders, decompressing what the ledger keeps of each session."""
    import sqlite3

    from graphiti_session_tracking.transcripts.state import decode_session

    found: dict[Path, bytes] = {}
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file() and path.suffix != ".jsonl":  # the user's own transcripts are theirs
                found[path] = path.read_bytes()
            if path.name.endswith(".ledger.sqlite") or path.parent.name == "ledgers":
                with sqlite3.connect(path) as db:
                    for (state,) in db.execute(
                        "SELECT session_state FROM sources WHERE session_state IS NOT NULL"
                    ):
                        session = decode_session(state)
                        texts = [m.text for m in session.messages] + [
                            json.dumps(c.input) for c in session.tool_calls
                        ]
                        found[path.with_suffix(".decoded")] = "\n".join(texts).encode()
    return found


def test_no_secret_reaches_the_llm_or_the_graph(graph_config: GraphConfig, tmp_path: Path) -> None:
    import asyncio
    import subprocess
    import sys

    transcript = seeded_transcript(tmp_path)
    with FakeOpenAI() as fake:
        config = tmp_path / "graphiti.config.json"
        config.write_text(json.dumps(llm_config(fake.base_url, tmp_path / "cache.json")))
        fake.reply_json(
            {
                "classifications": [
                    {
                        "id": 0,
                        "intent": "execute",
                        "domain": "unknown",
                        "confidence": 0.5,
                        "reasoning": "r",
                        "activity_signals": {},
                    }
                ]
            }
        )
        fake.default_reply.content = json.dumps({"objective": "Fix the login", "outcome": "completed"})
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "graphiti_session_tracking",
                "ingest",
                str(transcript),
                "--json",
                "--config",
                str(config),
                *backend_cli_args(graph_config),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["llm_calls"] >= 2
        sent = json.dumps([r.body for r in fake.requests])
    for name, secret in SECRETS.items():
        assert secret not in sent, name
        assert secret not in result.stdout + result.stderr, name
    assert "[REDACTED:" in sent

    async def graph_text() -> str:
        async with open_backend(graph_config) as backend:
            groups = await backend.list_groups() if backend.graph_per_group else []
            states = []
            for group in groups or ["work_app"]:
                driver = await backend.driver_for(group) if groups else backend.driver
                states.append(await dump(driver, group) if groups else None)
            if not groups:
                records, _, _ = await backend.driver.execute_query(
                    "MATCH (n) RETURN properties(n) AS p UNION ALL MATCH ()-[r]->() RETURN properties(r) AS p"
                )
                return json.dumps([dict(r["p"]) for r in records], default=str)
            return json.dumps(states, default=str)

    stored = asyncio.run(graph_text())
    assert "JWT_EXPIRY" in stored and "3600" in stored  # harmless settings stay readable
    for name, secret in SECRETS.items():
        assert secret not in stored, name

    # Every store on disk: the ingest ledger (raw and its decoded sessions), the tool cache, the
    # embedded database and its log, locks, anything else; all private to the user.
    home = Path(os.environ["GRAPHITI_HOME"])
    folders = [home, tmp_path]
    on_disk = files_on_disk(*folders)
    assert any(p.name.endswith(".decoded") for p in on_disk)
    for path, content in on_disk.items():
        for name, secret in SECRETS.items():
            assert secret.encode() not in content, (name, path)
    for folder in folders:
        for path in folder.rglob("*"):
            if path.suffix in (".jsonl", ".json") and path.parent == tmp_path:
                continue  # the test's own transcript and config
            mode = path.stat().st_mode & 0o777
            if path.is_dir() and (path.name.endswith((".aof.d", "ledgers")) or path == home):
                assert mode == 0o700, (path, oct(mode))
            elif (
                (path.is_file() and "ledger" in path.name)
                or path.name.endswith((".lock", ".server"))
                or (path.is_file() and path.parent.name.endswith(".aof.d"))
            ):
                assert mode == 0o600, (path, oct(mode))


def test_summarize_prints_no_secret(tmp_path: Path) -> None:
    import subprocess
    import sys

    transcript = seeded_transcript(tmp_path)
    for fmt in ("markdown", "json"):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "graphiti_session_tracking",
                "summarize",
                str(transcript),
                "--format",
                fmt,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
        for name, secret in SECRETS.items():
            assert secret not in result.stdout + result.stderr, (fmt, name)
        assert "[REDACTED:" in result.stdout


def test_a_planted_pickle_in_the_ledger_never_runs(tmp_path: Path) -> None:
    """The ledger's session state is JSON: bytes someone planted are ignored, never executed."""
    import pickle
    import sqlite3
    import subprocess
    import sys
    import zlib

    transcript = tmp_path / "s.jsonl"
    (tmp_path / "src").mkdir()
    shutil.copy(seeded_transcript(tmp_path / "src"), transcript)
    db = tmp_path / "g.falkordb"
    command = [sys.executable, "-m", "graphiti_session_tracking", "ingest", str(transcript), "--db", str(db)]
    assert subprocess.run(command, capture_output=True, timeout=300).returncode == 0
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (os.system, (f"touch {marker}",))

    planted = b"GSP1" + zlib.compress(pickle.dumps(Payload()))
    with sqlite3.connect(f"{db}.ledger.sqlite") as ledger:
        ledger.execute("UPDATE sources SET session_state = ?", (planted,))
    with transcript.open("a") as handle:  # grown: the next ingest reads the stored state
        handle.write(transcript.read_text().splitlines()[-1] + "\n")
    rerun = subprocess.run([*command, "--json"], capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert not marker.exists()
