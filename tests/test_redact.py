"""Secret redaction: seeded secrets of every kind must not survive; keys and harmless values must."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from conftest import TRANSCRIPTS

from graphiti_session_tracking.redact import Gate, Redactor, is_secret_key, redact_mapping
from graphiti_session_tracking.summary.model import (
    ConfigChange,
    DecisionRecord,
    EnhancedSessionSummary,
    ErrorResolution,
)
from graphiti_session_tracking.summary.redaction import redact_summary
from graphiti_session_tracking.transcripts import read_transcript

# Seeded secrets (fake, but in the real formats).
OPENAI = "sk-proj-Q7f3LmZ9xT2bV8nK4pR6wY1cH5jD0sGa"
OPENAI_OLD = "sk-3Fh8Kq2Lz9Wm4Xn7Bv1Cr6Ty0Ju5Ip2Og8Ae"
ANTHROPIC = "sk-ant-api03-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9Ed8Cb7Aa"
AWS_ACCESS = "AKIAIOSFODNN7EXAMPLE"
AWS_SESSION = "ASIAY34FZKBOKMUTVV7A"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
GITHUB = "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"
GITHUB_OAUTH = "gho_9Z8y7X6w5V4u3T2s1R0q9P8o7N6m5L4k3J2i"
GITHUB_APP = "ghs_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78"
GITHUB_USER = "ghu_Zy98Xw76Vu54Ts32Rq10Po98Nm76Lk54Ji32"
GITHUB_PAT = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQR"
GITLAB = "glpat-xY7zQ2wE9rT4uI1oP6aS"
SLACK_BOT = "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
SLACK_USER = "xoxp-223456789012-2234567890123-2234567890123-0123456789abcdef0123456789abcdef"
GOOGLE = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
STRIPE_LIVE = "sk_live_51H8xYzAbCdEfGhIjKlMnOpQr"
STRIPE_TEST = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"
STRIPE_RESTRICTED = "rk_live_51H8xYzQwErTyUiOpAsDfGhJk"
STRIPE_PUBLISHABLE = "pk_live_51H8xYzZxCvBnMqWeRtYuIoPa"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM_BODY = "MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi8Z2Mvk5yVq7p3eG2Zr4Kq8jY"
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\nQ2x9Lm3Kp8Zr5Tw1Vy7Ub4Xn\n-----END RSA PRIVATE KEY-----"
DB_PASSWORD = "Pg-pa55w0rd!x"
BEARER = "tok3n_9f8e7d6c5b4a3210fedcba"
BASIC = "YWRtaW46c3VwM3JzZWNyZXQ="
WEBHOOK = "aZ8kQ2mX9pL4vN7bR1tY6wE3sD5fG0hJ"
PLAIN_PASSWORD = "hunter2-correct"

TEXT_CORPUS: list[tuple[str, str | None]] = [
    (f"export OPENAI_API_KEY={OPENAI} && python run.py", None),
    (f"OPENAI_API_KEY={OPENAI_OLD} ANTHROPIC_API_KEY={ANTHROPIC} make eval", None),
    (f"client = Anthropic(api_key='{ANTHROPIC}')", "main.py"),
    (f"aws configure set aws_access_key_id {AWS_ACCESS}\naws sts ... {AWS_SESSION}", None),
    (f"[default]\naws_access_key_id = {AWS_ACCESS}\naws_secret_access_key = {AWS_SECRET}\n", "credentials"),
    (f"git clone https://{GITHUB}@github.com/acme/app.git", None),
    (f"gh auth: {GITHUB_OAUTH}, app {GITHUB_APP}, user {GITHUB_USER}", None),
    (f"GITHUB_TOKEN={GITHUB_PAT}", None),
    (f"git remote add origin https://oauth2:{GITLAB}@gitlab.com/acme/app.git", None),
    (f'slack:\n  bot_token: "{SLACK_BOT}"\n  user: {SLACK_USER}\n', "config.yaml"),
    (f"fetch('https://maps.googleapis.com/maps/api/geocode/json?key={GOOGLE}')", None),
    (f"stripe keys: {STRIPE_LIVE} {STRIPE_TEST} {STRIPE_RESTRICTED} {STRIPE_PUBLISHABLE}", None),
    (f"2026-11-20 12:00:01 INFO auth ok token={JWT} user=42", None),
    (f"Wrote id_rsa:\n{PEM}\nDone.", None),
    (f'{{"private_key": "{PEM.replace(chr(10), chr(92) + "n")}", "client_email": "x@y.iam"}}', "sa.json"),
    (f"psql postgres://app:{DB_PASSWORD}@db.internal:5432/app -c 'select 1'", None),
    (f"curl -H 'Authorization: Bearer {BEARER}' https://api.example.com/v1", None),
    (f'headers = {{"Authorization": "Basic {BASIC}"}}', None),
    (f"> GET /v1 HTTP/1.1\n> authorization: bearer {BEARER}\n", None),
    (f"WEBHOOK: {WEBHOOK}", "config.yaml"),
    (f'{{"webhook": "{WEBHOOK}", "retries": 3}}', None),
    (f"mysql --user root --password {PLAIN_PASSWORD} app", None),
    (f"app-cli deploy --token={PLAIN_PASSWORD} --env prod", None),
    (f'[database]\npassword = "{PLAIN_PASSWORD}"\nport = 5432\n', "settings.toml"),
    (f'{{"db": {{"password": "{PLAIN_PASSWORD}", "host": "db"}}}}', None),
    (f"database:\n  password: {PLAIN_PASSWORD}  # rotate monthly\n  host: db\n", "config.yaml"),
    (f"SECRET={PLAIN_PASSWORD}", None),
    (f"client_secret: '{PLAIN_PASSWORD}'", None),
    (f"const config = {{ apiKey: '{PLAIN_PASSWORD}' }}", "config.ts"),
]
ALL_SECRETS = [
    OPENAI,
    OPENAI_OLD,
    ANTHROPIC,
    AWS_ACCESS,
    AWS_SESSION,
    AWS_SECRET,
    GITHUB,
    GITHUB_OAUTH,
    GITHUB_APP,
    GITHUB_USER,
    GITHUB_PAT,
    GITLAB,
    SLACK_BOT,
    SLACK_USER,
    GOOGLE,
    STRIPE_LIVE,
    STRIPE_TEST,
    STRIPE_RESTRICTED,
    STRIPE_PUBLISHABLE,
    JWT,
    PEM_BODY,
    DB_PASSWORD,
    BEARER,
    BASIC,
    WEBHOOK,
    PLAIN_PASSWORD,
]

DOTENV = f"""\
# app settings
NODE_ENV=development
DEBUG=true
LOG_LEVEL=info
PORT=8080
JWT_EXPIRY=3600
DATABASE_URL=postgres://db:5432/app
CACHE_URL=redis://cache:6379/0
OPENAI_API_KEY={OPENAI}
JWT_SECRET="{PLAIN_PASSWORD}"
export DB_PASSWORD='{DB_PASSWORD}'
SESSION_SIGNING={WEBHOOK}
SMTP_HOST=smtp.mailgun.org
INTERNAL_NOTE=not-for-outside-eyes # comment
FEATURE_FLAGS=
"""


def _leaks(text: str) -> list[str]:
    return [s for s in ALL_SECRETS if s in text]


@pytest.mark.parametrize(("text", "context"), TEXT_CORPUS)
def test_no_seeded_secret_survives(text: str, context: str | None) -> None:
    seeded = [s for s in ALL_SECRETS if s in text]
    assert seeded, "corpus line holds no seeded secret"
    out = Redactor().redact(text, context)
    assert _leaks(out) == []
    assert "[REDACTED:" in out


def test_kinds_and_kept_structure() -> None:
    r = Redactor()
    assert r.redact(f"export OPENAI_API_KEY={OPENAI}") == "export OPENAI_API_KEY=[REDACTED:openai-key]"
    assert r.redact("OPENAI_API_KEY=not-a-known-format") == "OPENAI_API_KEY=[REDACTED:secret]"
    assert r.redact(f"key {ANTHROPIC}.") == "key [REDACTED:anthropic-key]."
    assert (
        r.redact(f"psql postgres://app:{DB_PASSWORD}@db/app")
        == "psql postgres://app:[REDACTED:password]@db/app"
    )
    assert r.redact(f"Authorization: Bearer {BEARER}") == "Authorization: Bearer [REDACTED:bearer-token]"
    assert r.redact(f"Authorization: Basic {BASIC}") == "Authorization: Basic [REDACTED:basic-auth]"
    assert r.redact(f"Wrote:\n{PEM}\nDone.") == "Wrote:\n[REDACTED:private-key]\nDone."
    assert r.redact(f'{{"password": "{PLAIN_PASSWORD}", "user": "app"}}') == (
        '{"password": "[REDACTED:secret]", "user": "app"}'
    )
    assert (
        r.redact(f"run --password {PLAIN_PASSWORD} --verbose") == "run --password [REDACTED:secret] --verbose"
    )
    assert r.redact(f"WEBHOOK={WEBHOOK} ./hook.sh") == "WEBHOOK=[REDACTED:high-entropy] ./hook.sh"
    assert r.findings["openai-key"] == 1
    assert r.findings["secret"] == 3
    assert r.findings["high-entropy"] == 1


def test_dotenv_redacts_every_value_but_the_harmless() -> None:
    r = Redactor()
    out = r.redact(DOTENV, ".env")
    assert _leaks(out) == []
    for kept in (
        "NODE_ENV=development",
        "DEBUG=true",
        "LOG_LEVEL=info",
        "PORT=8080",
        "JWT_EXPIRY=3600",
        "DATABASE_URL=postgres://db:5432/app",
        "CACHE_URL=redis://cache:6379/0",
        "FEATURE_FLAGS=",
        "# app settings",
    ):
        assert kept in out.splitlines()
    assert 'JWT_SECRET="[REDACTED:secret]"' in out
    assert "export DB_PASSWORD='[REDACTED:secret]'" in out
    assert "SMTP_HOST=[REDACTED:env-value]" in out
    assert "INTERNAL_NOTE=[REDACTED:env-value] # comment" in out
    assert "not-for-outside-eyes" not in out
    # The same lines outside a .env file: only secrets go, plain settings stay.
    plain = Redactor().redact(DOTENV, "notes.txt")
    assert "SMTP_HOST=smtp.mailgun.org" in plain
    assert _leaks(plain) == []


@pytest.mark.parametrize(
    "name", [".env", ".env.local", "config/.env.production", "prod.env", "/srv/app/.envrc"]
)
def test_env_file_names(name: str) -> None:
    assert Redactor().redact("SMTP_HOST=smtp.mailgun.org", name) == "SMTP_HOST=[REDACTED:env-value]"


def test_harmless_text_untouched() -> None:
    text = (
        "Fixed the password reset flow; tokens now expire after JWT_EXPIRY=3600 seconds.\n"
        "commit 3f2a9c8e1b7d6f5a4e3c2b1a0f9e8d7c6b5a4e3c: fix login\n"
        "url: https://example.com/docs?page=2, path: /usr/lib/python3.12\n"
        "max_tokens: 4096\ntoken_count=12\nprimary_key: id\nif password == confirm: ok\n"
        "api_key = os.environ['OPENAI_API_KEY']; password=password; token = get_token()\n"
        "PASSWORD_FILE=/run/secrets/db\nDB_PASSWORD=${DB_PASSWORD}\n"
        "def login(password: str, token: Optional[str] = None): ...\n"
        "interface Creds { password: string; apiKey?: string }\n"
        "self.api_key = settings.api_key\n"
        '"integrity": "sha512-Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf9Ed8Cb7Aa==", "tool_use_id": "toolu_01AbCd3Ef5Gh7Jk9Lm2Np4Qr"\n'
    )
    r = Redactor()
    assert r.redact(text) == text
    assert not r.findings


def test_idempotent() -> None:
    corpus = "\n".join(t for t, _ in TEXT_CORPUS) + "\n" + DOTENV
    for context in (None, ".env", "config.yaml"):
        r = Redactor()
        once = r.redact(corpus, context)
        count = sum(r.findings.values())
        assert r.redact(once, context) == once
        assert sum(r.findings.values()) == count  # nothing new found in placeholders


def test_allowlist_exact_and_regex() -> None:
    r = Redactor(allowlist=[STRIPE_TEST, "re:AKIA[A-Z0-9]*EXAMPLE"])
    out = r.redact(f"{STRIPE_TEST} {STRIPE_LIVE} {AWS_ACCESS}")
    assert out == f"{STRIPE_TEST} [REDACTED:stripe-key] {AWS_ACCESS}"
    assert Redactor(allowlist=["changeme"]).redact("PASSWORD=changeme") == "PASSWORD=changeme"


def test_extra_patterns() -> None:
    r = Redactor(extra_patterns=[("acme-token", r"acme_[0-9a-f]{24}"), ("pin", r"PIN (\d{4,6})")])
    out = r.redact("use acme_0123456789abcdef01234567 with PIN 123456")
    assert out == "use [REDACTED:acme-token] with PIN [REDACTED:pin]"
    assert r.redact(out) == out
    assert r.findings == {"acme-token": 1, "pin": 1}


def test_redact_mapping() -> None:
    tool_input: dict[str, Any] = {
        "command": f"curl -H 'Authorization: Bearer {BEARER}' https://api",
        "env": {"API_KEY": PLAIN_PASSWORD, "MODE": "fast", "RETRIES": 3, "SEED": WEBHOOK},
        "headers": [{"name": "X-Api-Key", "value": GITHUB}],
        "password": None,
    }
    out = redact_mapping(tool_input)
    assert _leaks(str(out)) == []
    assert out["env"] == {
        "API_KEY": "[REDACTED:secret]",
        "MODE": "fast",
        "RETRIES": 3,
        "SEED": "[REDACTED:high-entropy]",
    }
    assert out["headers"][0]["name"] == "X-Api-Key"
    assert out["password"] is None
    assert tool_input["env"]["API_KEY"] == PLAIN_PASSWORD  # the input is not changed


def _summary() -> EnhancedSessionSummary:
    return EnhancedSessionSummary(
        session_id="0f6b0a6e-1c2d-4e5f-8a9b-0c1d2e3f4a5b",
        project_path="/home/me/app",
        objective=f"Rotate the leaked key {OPENAI} and fix login",
        outcome="completed",
        completed_tasks=[f"Ran psql postgres://app:{DB_PASSWORD}@db/app"],
        key_decisions=[
            DecisionRecord(
                decision="Move secrets to .env",
                rationale=f"GITHUB_TOKEN={GITHUB} was committed",
                alternatives=[f"keep JWT_SECRET={PLAIN_PASSWORD} in settings.py"],
            )
        ],
        errors_resolved=[
            ErrorResolution(
                error=f"401 Unauthorized: Authorization: Bearer {BEARER}",
                root_cause=f"expired token {JWT}",
                fix="refreshed the token",
            )
        ],
        config_changes=[
            ConfigChange(file=".env", setting="JWT_SECRET", old_value=PLAIN_PASSWORD, new_value=WEBHOOK),
            ConfigChange(
                file=".env", setting="JWT_EXPIRY", old_value="60", new_value="3600", reason="longer"
            ),
            ConfigChange(file=".env", setting="SMTP_HOST", old_value=None, new_value="smtp.mailgun.org"),
            ConfigChange(file="config.yaml", setting="database.password", old_value="x1", new_value="y2"),
            ConfigChange(file="config.yaml", setting="log_level", old_value="info", new_value="debug"),
            ConfigChange(file=".env", setting="OLD_TOKEN", old_value=PLAIN_PASSWORD, new_value="(removed)"),
            # a name a command made can carry a secret too
            ConfigChange(file="package.json", setting=f"dependencies.https://ci:{GITHUB}", new_value="1.0.0"),
        ],
        discoveries=[f"AWS creds {AWS_ACCESS} live in ~/.aws/credentials"],
        next_steps=[f"Revoke {GITLAB} and {SLACK_BOT}"],
        files_modified=[".env", "src/auth.py"],
    )


def test_redact_summary() -> None:
    summary = _summary()
    r = Redactor()
    out = redact_summary(summary, r)
    assert _leaks(out.model_dump_json()) == []
    assert out.session_id == summary.session_id
    assert out.files_modified == [".env", "src/auth.py"]
    assert out.key_decisions is not None
    assert out.key_decisions[0].decision == "Move secrets to .env"
    assert out.key_decisions[0].rationale == "GITHUB_TOKEN=[REDACTED:github-token] was committed"
    assert out.errors_resolved is not None
    assert out.errors_resolved[0].fix == "refreshed the token"
    changes = {(c.file, c.setting): c for c in out.config_changes or []}
    secret = changes[(".env", "JWT_SECRET")]
    assert (secret.old_value, secret.new_value) == ("[REDACTED:secret]", "[REDACTED:secret]")
    expiry = changes[(".env", "JWT_EXPIRY")]
    assert (expiry.old_value, expiry.new_value, expiry.reason) == ("60", "3600", "longer")
    assert changes[(".env", "SMTP_HOST")].new_value == "[REDACTED:env-value]"
    assert changes[(".env", "SMTP_HOST")].old_value is None
    db = changes[("config.yaml", "database.password")]
    assert (db.old_value, db.new_value) == ("[REDACTED:secret]", "[REDACTED:secret]")
    level = changes[("config.yaml", "log_level")]
    assert (level.old_value, level.new_value) == ("info", "debug")
    removed = changes[(".env", "OLD_TOKEN")]
    assert (removed.old_value, removed.new_value) == ("[REDACTED:secret]", "(removed)")
    assert ("package.json", "dependencies.https://ci:[REDACTED:github-token]") in changes
    assert out.next_steps == ["Revoke [REDACTED:gitlab-token] and [REDACTED:slack-token]"]
    assert summary.config_changes is not None
    assert summary.config_changes[0].old_value == PLAIN_PASSWORD  # the original is untouched
    assert redact_summary(out, Redactor()) == out  # idempotent
    assert "| `.env` | `JWT_EXPIRY` | `60` → `3600` |" in out.to_markdown()


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OPENAI_API_KEY", True),
        ("apiKey", True),
        ("APIKEY", True),
        ("client-secret", True),
        ("clientSecret", True),
        ("DB_PASSWD", True),
        ("MYSQL_PWD", True),
        ("auth_token", True),
        ("CREDENTIALS", True),
        ("private_key", True),
        ("SECRET_KEY_BASE", True),
        ("JWT_EXPIRY", False),
        ("max_tokens", False),
        ("primary_key", False),
        ("PASSWORD_FILE", False),
        ("PWD", False),
        ("monkey", False),
    ],
)
def test_secret_key_names(name: str, secret: bool) -> None:
    assert is_secret_key(name) is secret


def test_fast_enough() -> None:
    text = ("\n".join(t for t, _ in TEXT_CORPUS) + "\n" + DOTENV + "\nplain log line " * 50) * 20
    r = Redactor()
    start = time.perf_counter()
    r.redact(text, ".env")
    assert time.perf_counter() - start < 2.0


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Deploy to staging, and the db password is Tr0ub4dor&3xyz for now", "Tr0ub4dor&3xyz"),
        ("The password for admin was hunter2hunter2.", "hunter2hunter2"),
        (
            "key AKIAIOSFODNN7EXAMPLE with secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY please",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ),
        ("mysql -uroot -pS3cretPw99 shop < dump.sql", "S3cretPw99"),
        ('mysqldump -u root -p"S3cret Pw99" shop', "S3cret Pw99"),
        ("curl -u admin:S3cretPw99 https://api.example.com/v1", "S3cretPw99"),
        ("curl --user admin:S3cretPw99 https://api.example.com/v1", "S3cretPw99"),
        ("sshpass -p S3cretPw99 ssh deploy@host", "S3cretPw99"),
        ("dbpass: S3cretPw99", "S3cretPw99"),
        ('"password": "S3cretPw99",', "S3cretPw99"),
    ],
)
def test_every_form_a_password_takes_is_redacted(text: str, secret: str) -> None:
    assert secret not in Redactor().redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "The password is required for every login.",
        "The password was wrong, so the test failed.",
        "mysql -u root -p shop",
        "compass: north",
        "bypass: true",
        '- "my-secret-pattern: .*"',
        "password: $DB_PASSWORD",
    ],
)
def test_ordinary_text_about_passwords_is_kept(text: str) -> None:
    assert Redactor().redact(text) == text


def test_no_word_of_the_fixtures_prose_is_redacted() -> None:
    """Every user and assistant text of the real fixture sessions, unchanged by redaction."""
    redactor = Redactor()
    words = 0
    for transcript in sorted(TRANSCRIPTS.glob("*.jsonl")):
        for message in read_transcript(transcript).messages:
            words += len(message.text.split())
            assert redactor.redact(message.text) == message.text, transcript.name
    assert words > 1000


def test_an_env_template_keeps_its_placeholders_but_not_a_real_token() -> None:
    """`.env.example` holds placeholders meant to be read; a real-looking token in it still goes."""
    r = Redactor()
    text = "DATABASE_URL=postgres://localhost/app\nWEBHOOK_ROUTE=set-me-in-prod-01\nGITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a\n"
    out = r.redact(text, context="/p/.env.example")
    assert "WEBHOOK_ROUTE=set-me-in-prod-01" in out and "DATABASE_URL=postgres://localhost/app" in out
    assert "ghp_16C7" not in out
    assert "WEBHOOK_ROUTE=[REDACTED" in r.redact(text, context="/p/.env")  # a real .env: every value


def test_a_summary_is_redacted_once_and_again_when_changed() -> None:
    """The writer redacts every summary on entry; one that the same rules already redacted, and
    that nobody changed since, is not redacted twice. A change made after it is."""
    from graphiti_session_tracking.summary.model import EnhancedSessionSummary

    summary = EnhancedSessionSummary(session_id="s", objective=f"Deploy with {OPENAI}", outcome="completed")
    redactor = Redactor()
    once = redact_summary(summary, redactor)
    assert OPENAI not in once.objective
    assert redact_summary(once, redactor) is once  # same rules, same content: nothing to do
    assert redact_summary(once, Redactor(allowlist=["x"])) is not once  # other rules: done again
    changed = once.model_copy(update={"objective": f"Now {OPENAI}"})
    assert OPENAI not in redact_summary(changed, redactor).objective


def test_the_library_rules_are_kept_so_a_later_process_need_not_import_it(tmp_path: Path) -> None:
    """detect-secrets' patterns are written once beside our data; a later process redacts with
    them (a token only the library knows) without importing the library; a damaged copy is
    replaced by the library's own."""
    env = {**os.environ, "GRAPHITI_HOME": str(tmp_path)}
    script = (
        "import sys\n"
        "from graphiti_session_tracking.redact import Redactor\n"
        "print(Redactor().redact('twilio SK0123456789abcdef0123456789abcdef here'))\n"
        "print('detect_secrets' in sys.modules)\n"
    )

    def run() -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        return done.stdout.split()

    assert run() == ["twilio", "[REDACTED:twilio-api-key]", "here", "True"]  # first: from the library
    (kept,) = (tmp_path / "cache").iterdir()
    assert run()[1:] == ["[REDACTED:twilio-api-key]", "here", "False"]  # then: from our copy
    kept.write_text('[["twilio", "(unclosed", 0, 0]]')
    assert run()[1:] == ["[REDACTED:twilio-api-key]", "here", "True"]
    assert run()[-1] == "False" and "(unclosed" not in kept.read_text()


def test_rows_written_redacted_lose_only_their_control_characters() -> None:
    title = "\x1b]0;pwned\x07"
    row = {
        "decision": f"use sk-proj-{'Q7fK2mZp9XwL4vB8nR3tY6uH1jD5sG0aE'}{title}",
        "plain": "kept",
        "confidence": 0.9,
        "holds": True,
        "until": None,
        "files": ["a.py", f"b{title}.py"],
        "nested": MappingProxyType({"x": f"\u202e{title}y"}),
        "pair": ("ok", "\x07bell"),
    }
    gate = Gate()
    assert gate.data([row], redacted=True) == [
        {
            "decision": "use sk-proj-Q7fK2mZp9XwL4vB8nR3tY6uH1jD5sG0aE",  # trusted: not redacted again
            "plain": "kept",
            "confidence": 0.9,
            "holds": True,
            "until": None,
            "files": ["a.py", "b.py"],
            "nested": {"x": "y"},
            "pair": ["ok", "bell"],
        }
    ]
    # Nor are the rules compiled for it: the stamp to compare with is known without them.
    assert gate._redactor is None and gate.signature == Redactor().signature
    assert Gate(Redactor(allowlist=["x"])).signature != gate.signature
