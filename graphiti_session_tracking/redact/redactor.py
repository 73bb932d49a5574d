"""Secret redaction for text headed to an LLM or into the graph.

`Redactor.redact` replaces secrets with `[REDACTED:<kind>]` and counts them in `findings`:

- known token formats (OpenAI/Anthropic `sk-…`, AWS access and secret keys, GitHub, GitLab, Slack,
  Google, Stripe, JWTs, PEM private key blocks, `scheme://user:password@host`,
  `Authorization: Bearer|Basic …`);
- values of secret-looking keys (`*_KEY`, `*_SECRET`, `*_TOKEN`, `*PASSWORD*`, …) in `KEY=value`,
  `key: value`, `"key": "value"`, `key = "value"` and `--password x` / `--token=x`; the key stays;
- in `.env` files (by the `context` file name) every value that is not plainly harmless (numbers,
  booleans, short plain words, URLs without credentials);
- high-entropy values (length >= 20, upper, lower and digits) in those value positions, whatever
  the key.

Choice: the rules are written here rather than taken from a detector library. The maintained
candidates (detect-secrets, for one) are scanners: they report a line and a hashed secret, not the
span to replace, do not keep the key, and know nothing of the `.env` "redact every value" rule, so
they would still need most of this module around them, plus a dependency. Every regex is compiled
once, at import (extra patterns once per `Redactor`). Redaction is idempotent: placeholders are
never matched again.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from .signature import RULES_VERSION, rules_signature
from .tokens import GLUED, LONGEST_GROUP, OWN_RULES, library_may_match, library_rules

__all__ = ["RULES_VERSION", "Redactor", "is_secret_key", "redact_mapping", "redact_pasted_tokens"]

_PLACEHOLDER = re.compile(r"\[REDACTED:[^\]\s]+\]")
_PLACEHOLDER_TEXT = r"\[REDACTED:[^\]\s]+\]"


def _placeholder(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# A password said in a sentence: "the db password is X", "the pw for admin was X" (`key=value`
# and `key: value` forms are the key rules' below).
_PROSE_PASSWORD = re.compile(
    r"(?i)\b(?:password|passwd|passphrase|pwd|pw|pass ?code|pin)\b"
    r"(?:\s+(?:for|of|to)\s+[\w.@-]+)?\s+(?:is|was|is set to|should be|will be)\s+"
    r"(?P<q>[\"'`]?)(?P<val>[^\s\"'`<>${}(\[][^\s\"'`]{3,}?)(?P=q)(?=[\s,;.!?)]*(?:\s|$))"
)
# A 40-character AWS secret written anywhere after its access key id in the same text.
_AWS_KEY_ID = re.compile(
    r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])|\[REDACTED:aws-access-key\]"
)
_AWS_SECRET_NEARBY = re.compile(
    r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+=]*[0-9/+])(?=[A-Za-z0-9/+=]*[a-z])[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])"
)
# Passwords given to commands: `mysql -uroot -pX` (attached), `sshpass -p X`, `curl -u user:X`.
_COMMAND_PASSWORD = re.compile(
    r"(?P<pre>\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlimport|mysqlshow)\b[^\n|;&]*?\s-p)"
    r"(?P<val>\"[^\"\n]+\"|'[^'\n]+'|[^\s\"'-][^\s]*)"
    r"|(?P<pre2>\bsshpass\s+-p\s*)(?P<val2>\"[^\"\n]+\"|'[^'\n]+'|\S+)"
    r"|(?P<pre3>\b(?:curl|wget|http|svn)\b[^\n|;&]*?\s(?:-u|--user|--http-user)[\s=]+[\"']?[^\s:\"']+:)"
    r"(?P<val3>[^\s\"']+)"
    # registry logins: `docker login -u me -p X`, `podman login --password X` (the flag rule has
    # the long form; `-p` is a port elsewhere, so only after these commands)
    r"|(?P<pre4>\b(?:docker|podman|buildah|skopeo|nerdctl|helm\s+registry|oras|crane\s+auth)\s+login\b[^\n|;&]*?\s-p[\s=]*)"
    r"(?P<val4>\"[^\"\n]+\"|'[^'\n]+'|[^\s\"'-]\S*)"
    r"|(?P<pre5>\bhtpasswd\b[^\n|;&]*?\s-\w*b\w*\s+\S+\s+\S+\s+)(?P<val5>\S+)"
)
# A secret said in a sentence: "the secret is X", "my API key is X", "use token X". Unlike a
# password (any word can be one), the value must look like a token: 8+ characters with a digit,
# so "the key is simplicity" and "the token is expired" stay.
_PROSE_SECRET = re.compile(
    r"(?i)\b(?:secret|token|api[ _-]?key|access[ _-]?key|key|credentials?|auth(?:entication)?[ _-]?code)\b"
    r"(?:\s+(?:for|of|to)\s+[\w.@-]+)?(?:\s+(?:is|was|is set to|should be|will be|=|:)|\s*[:=])?\s+"
    r"(?P<q>[\"'`]?)(?P<val>(?=[A-Za-z0-9+/=_.~-]*\d)(?=[A-Za-z0-9+/=_.~-]*[A-Za-z])[A-Za-z0-9][A-Za-z0-9+/=_.~-]{7,})(?P=q)"
    r"(?![A-Za-z0-9+/=_~-]|\.[A-Za-z0-9])"
)
_URL_CREDENTIALS = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://)([^\s:/@\[\]]+):([^\s@/]+)@")
_AUTH_HEADER = re.compile(
    r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?(bearer|basic|token)[ \t]+([A-Za-z0-9._~+/=-]{8,})"
)
_BEARER = re.compile(r"\b[Bb]earer\s+([A-Za-z0-9._~+/=-]{16,})")
_AUTH_KINDS = {"bearer": "bearer-token", "basic": "basic-auth", "token": "auth-token"}

# --- Key → value positions ------------------------------------------------------------------------

_KEY = r"[A-Za-z_][\w.-]*"
_DQ = r'"(?:[^"\\\n]|\\.)*"'
_SQ = r"'[^'\n]*'"
_KV_EQ = re.compile(
    rf"(?<![\w.$-])(?P<kq>[\"']?)(?P<key>{_KEY})(?P=kq)(?P<sep>[ \t]*:?=(?!=)[ \t]*)"
    rf"(?P<val>{_DQ}|{_SQ}|{_PLACEHOLDER_TEXT}|[^\s\"'`,;&|<>(){{}}\[\]]++(?![(\[{{]))"
    r"(?![ \t]*:(?![:/]))"
)
_KV_COLON = re.compile(
    rf"(?<![\w.$-])(?P<kq>[\"']?)(?P<key>{_KEY})(?P=kq)(?P<sep>[ \t]*:(?![:/=])[ \t]*)"
    rf"(?P<val>{_DQ}|{_SQ}|{_PLACEHOLDER_TEXT}|[^\s\"'`,;#{{}}\[\]]++(?![(\[{{])(?<!:))"
    r"(?![ \t]*:(?![:/]))"  # a quoted word followed by a colon is the next key, not this value
)
_CLI_FLAG = re.compile(
    rf"(?<![\w-])--(?P<key>[A-Za-z][\w-]*)(?P<sep>=|[ \t]+)"
    rf"(?P<val>{_DQ}|{_SQ}|{_PLACEHOLDER_TEXT}|[^\s\"'<>|&;-][^\s\"';&|)]*)"
)
_ENV_LINE = re.compile(
    rf"^(?P<pre>[ \t]*(?:export[ \t]+)?)(?P<key>{_KEY})(?P<sep>[ \t]*=[ \t]*)"
    rf"(?P<val>{_DQ}|{_SQ}|[^\n]*?)(?P<post>(?:[ \t]+#[^\n]*)?[ \t]*)$",
    re.MULTILINE,
)
_NETRC_PASSWORD = re.compile(r"(?<![\w-])(?P<key>password|passwd)(?P<sep>[ \t]+)(?P<val>\S+)")
_PGPASS_LINE = re.compile(r"^(?P<pre>(?:[^:\n]*:){4})(?P<val>[^\n]+)$", re.MULTILINE)

_SECRET_NAME = re.compile(
    r"(?:.*_KEY|.*_SECRET|.*_TOKEN|.*PASSWORD.*|.*PASSWD.*|.*_PWD|.*_PW|PW|API_?KEY|SECRET|TOKEN|CREDENTIALS?"
    r"|.*_PASS|(?:DB|SQL|MYSQL|PG|POSTGRES|REDIS|MONGO|ADMIN|ROOT|USER|SMTP|MAIL|FTP|LDAP|SSH|VPN|WIFI)PASS"
    r"|.*_CREDENTIALS?|PRIVATE_?KEY|(?:.*_)?SECRETS?(?:_.*)?)"
)
_NOT_SECRET_NAME = re.compile(
    r"(?:PRIMARY|FOREIGN|SORT|PARTITION|CACHE|ROUTING|UNIQUE|INDEX|SHARD|HASH|GROUP|MAP|DICT|LOOKUP|PUBLIC)_KEY"
    r"|.*_(?:FILE|PATH|DIR|STDIN|ENV|VAR|NAME|LENGTH|LEN|TTL|EXPIRY|EXPIRES|EXPIRATION|TIMEOUT|COUNT|"
    r"POLICY|PROMPT|FIELD|HEADER|TYPE|ID|URL|URI|ENDPOINT|LIMIT|MIN|MAX|ROTATION)"
)
# Words that follow "password is" in ordinary prose, not a password.
_PROSE_NOT_A_PASSWORD = frozenset(
    [
        "required",
        "optional",
        "wrong",
        "incorrect",
        "invalid",
        "correct",
        "empty",
        "missing",
        "set",
        "unset",
        "stored",
        "saved",
        "hashed",
        "encrypted",
        "needed",
        "expired",
        "changed",
        "reset",
        "correctly",
        "incorrectly",
        "being",
        "not",
        "now",
        "still",
        "also",
        "the",
        "a",
        "an",
        "too",
        "only",
        "never",
        "always",
        "in",
        "on",
        "at",
        "for",
        "from",
        "with",
        "without",
        "used",
        "shown",
        "hidden",
        "masked",
    ]
)
# Values after "key" / "token" that are not tokens: versions, sizes, dates, file names, ids of
# records the session talks about.
_NOT_A_TOKEN = re.compile(
    r"(?i)v?\d+(?:\.\d+)+\w*|\d+(?:[.,]\d+)?\s*(?:k|kb|mb|gb|ms|s|m|h|d|%|bits?|bytes?|tokens?)"
    r"|\d{4}-\d{2}-\d{2}\S*|[\w.-]+\.(?:py|js|ts|tsx|json|ya?ml|toml|md|txt|env|go|rs|java|sh|cfg|ini|pem|crt)"
    r"|[a-z]+(?:[-_][a-z]+)*[-_]?\d{1,3}"
)
# Text in which no rule below can match: no secret-sounding word, no URL, no command flag that
# takes a password, and no run of 15 token characters (the shortest known token format). Most
# text is such, and one search costs a hundredth of running every rule.
_MAYBE_SECRET = re.compile(
    r"(?i)pass|pwd|pw\b|key|token|secret|auth|bearer|cred|private|://|\bpin\b|\s-[pu]|--user|login"
    r"|[A-Za-z0-9_+/=.~-]{15}"
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_KEY_SEPARATORS = re.compile(r"[-.\s]+")

# --- Values that are plainly harmless or not a literal secret ---------------------------------------

_HARMLESS_ENV_VALUE = re.compile(
    r"(?i)[+-]?\d+(?:\.\d+)?(?:ms|s|m|h|d|w|k|kb|mb|gb|g|%)?|true|false|yes|no|on|off|null|none"
    r"|[A-Za-z_-]{1,12}|[a-z][a-z0-9+.-]*://[^\s@]*"
)
_REFERENCE = re.compile(
    r"(?i)\$\{?[A-Za-z_]\w*(?::?[-=?][^}]*)?\}?|\$env:\w+|<[^<>]*>|%\([^)]*\)s|\{\{.*\}\}|null|none|nil|~|true|false"
    r"|\*+|x{3,}|\.{3}|…|(?:str|bytes|int|float|bool|SecretStr|string|number|boolean|any|unknown)\??"
)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)+")  # config.metric: code
_PLAIN_WORDS = re.compile(r"[A-Za-z]{1,24}|[A-Z][a-z]+(?:-[A-Z][a-z]+)+")  # a word, a header name
_WORD_JOINED = re.compile(r"[A-Za-z]+(?:[-_][A-Za-z]+)+")
# `*_KEY` names that are a key of a map, a cache or a trailer, unlike API_KEY or SECRET_KEY.
_LOOKUP_KEY_NAME = re.compile(
    r"(?!.*(?:API|ACCESS|SECRET|PRIVATE|SIGNING|ENCRYPTION|MASTER|LICEN[CS]E|AUTH|CLIENT|APP|SERVICE|"
    r"ACCOUNT|SSH|GPG|PGP|DEPLOY|ADMIN|ROOT|WEBHOOK|SESSION|JWT|HMAC|CRYPTO)_?KEY$).*_KEY"
)
# Not a value at all: a format verb (`token: %w`), code continuing on the next line (`\n\treturn`,
# in JSON-escaped text), Markdown emphasis, a URN.
_NOT_A_VALUE = re.compile(r"%[-+# 0]*\d*(?:\.\d+)?[a-zA-Z]$|\\[ntr]|\*|urn:")
# A stand-in for a secret, not one: truncated (`ghp_...`, `sk-`), masked (`sk-a***wxyz`), a
# bracketed or described placeholder (`[REDACTED_API_KEY]`, `your_key_here`, `xxxx`).
_PLACEHOLDER_VALUE = re.compile(
    r"(?i)(?:\.\.\.|…|[-_])$|\*{3}|\[[A-Z_]+\]|^(?:your|my)[_-]|_here$|x{6,}|not[-_]a[-_]real|example"
)
_PASSWORD_NAME = re.compile(r"PASS|PWD|(?:^|_)PW(?:_|$)|PIN(?:_|$)")
_ID_LIKE = re.compile(r"(?:toolu|srvtoolu|msg|req|call|chatcmpl|run|thread|asst|file)_[A-Za-z0-9]+")
_NO_ENTROPY_NAME = re.compile(
    r"(?:.*_)?(?:ID|UUID|GUID|SHA\d*|HASH|DIGEST|ETAG|CHECKSUM|COMMIT|REV|REVISION|INTEGRITY|SIGNATURE_ALG)S?"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_ENTROPY_CANDIDATE = re.compile(r"[A-Za-z0-9+/=_-]{20,}")
_WORDY = re.compile(r"[a-z]{6,}|(?:[A-Z][a-z]{3,}.*){2}")

_ENTROPY_THRESHOLD = 3.5


def _normalized_name(name: str) -> str:
    """`apiKey`, `api-key`, `db.api_key` → `API_KEY`, `DB_API_KEY`."""
    norm = _KEY_SEPARATORS.sub("_", _CAMEL.sub("_", name.strip().strip("\"'-"))).upper()
    return norm.rsplit("]", 1)[-1].lstrip("_")  # TOML "[section] key" forms


def is_secret_key(name: str) -> bool:
    """True when a key or setting name looks like it holds a secret (`DB_PASSWORD`, `apiKey`, …)."""
    norm = _normalized_name(name)
    if not norm or _NOT_SECRET_NAME.fullmatch(norm):
        return False
    return _SECRET_NAME.fullmatch(norm) is not None


_ENV_TEMPLATES = (".example", ".sample", ".template", ".dist", ".defaults", ".tmpl")


def _is_env_file(context: str | None) -> bool:
    """A `.env` file whose every value may be a secret; a template of one (`.env.example`) holds
    placeholders meant to be read, and keeps them unless a key or token rule says otherwise."""
    if not context:
        return False
    name = posixpath.basename(context.replace("\\", "/"))
    if name.lower().endswith(_ENV_TEMPLATES):
        return False
    return name in {".env", ".envrc"} or name.startswith(".env.") or name.endswith(".env")


def _shannon_entropy(text: str) -> float:
    counts = Counter(text)
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _high_entropy(value: str) -> bool:
    """A single token that looks random: long, upper, lower and digits, no words, high entropy."""
    if not _ENTROPY_CANDIDATE.fullmatch(value) or _WORDY.search(value) or _ID_LIKE.fullmatch(value):
        return False
    if _UUID.search(value):
        return False
    if not (
        any(c.islower() for c in value)
        and any(c.isupper() for c in value)
        and any(c.isdigit() for c in value)
    ):
        return False
    return _shannon_entropy(value) >= _ENTROPY_THRESHOLD


def _unquote(value: str) -> tuple[str, str, str]:
    """(opening quote, inner text, closing quote)."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[0], value[1:-1], value[-1]
    return "", value, ""


class Redactor:
    """Replaces secrets in text with `[REDACTED:<kind>]`; `findings` counts them by kind."""

    def __init__(self, extra_patterns: Sequence[tuple[str, str]] = (), allowlist: Sequence[str] = ()) -> None:
        self.findings: Counter[str] = Counter()
        # Called with (kind, value) for each secret replaced: the false-positive measurement
        # (tests, bench/redact.py) reads what was taken; nothing in the product sets it.
        self.on_secret: Callable[[str, str], None] | None = None
        self._extra = tuple((kind, re.compile(pattern)) for kind, pattern in extra_patterns)
        # Which rules these are: a summary redacted by an equal redactor need not be again.
        self.signature = rules_signature(extra_patterns, allowlist)
        self._allow_exact = frozenset(a for a in allowlist if not a.startswith("re:"))
        allow_res = [a[3:] for a in allowlist if a.startswith("re:")]
        self._allow_re = re.compile("|".join(f"(?:{p})" for p in allow_res)) if allow_res else None

    # -- public ----------------------------------------------------------------------------------

    def redact(self, text: str, context: str | None = None) -> str:
        """`text` with every secret replaced. `context`: the file name the text comes from, if any."""
        if not text or (not context and not self._extra and not _MAYBE_SECRET.search(text)):
            return text
        for kind, pattern in self._extra:
            group = 1 if pattern.groups else 0
            text = pattern.sub(self._group_replacer(kind, group), text)
        rules = OWN_RULES + library_rules() if library_may_match(text) else OWN_RULES
        for kind, pattern, group in rules:
            text = pattern.sub(self._token_replacer(kind, group), text)
        text = _URL_CREDENTIALS.sub(self._group_replacer("password", 3), text)
        text = _AUTH_HEADER.sub(self._auth_replace, text)
        text = _BEARER.sub(self._group_replacer("bearer-token", 1), text)
        text = _COMMAND_PASSWORD.sub(self._command_replace, text)
        text = _PROSE_PASSWORD.sub(self._prose_replace, text)
        text = _PROSE_SECRET.sub(self._prose_secret_replace, text)
        text = self._aws_secrets_after_ids(text)
        text = _CLI_FLAG.sub(self._kv_replace, text)
        name = posixpath.basename((context or "").replace("\\", "/"))
        if _is_env_file(context):
            text = _ENV_LINE.sub(lambda m: self._kv_replace(m, env_file=True), text)
        if name in {".netrc", "_netrc"}:
            text = _NETRC_PASSWORD.sub(self._kv_replace, text)
        if name == ".pgpass":
            text = _PGPASS_LINE.sub(self._group_replacer("password", 2), text)
        text = _KV_EQ.sub(self._kv_replace, text)
        text = _KV_COLON.sub(self._kv_replace, text)
        return text

    def redact_value(self, value: str, key: str | None = None, context: str | None = None) -> str:
        """One value of setting `key` (read from file `context`): the key and file rules apply to it."""
        text = self.redact(value, context)
        quote, inner, end = _unquote(text.strip())
        if key is None or _PLACEHOLDER.search(inner) or self._allowed(inner):
            kind = None
        else:
            kind = self._value_kind(key, inner, env_file=_is_env_file(context))
        if kind is None and key is None and _high_entropy(inner) and not self._allowed(inner):
            kind = "high-entropy"
        if kind is None:
            return text
        self._found(kind, inner)
        return f"{quote}{_placeholder(kind)}{end}"

    def redact_mapping(self, obj: Any, context: str | None = None) -> Any:
        """A copy of nested dicts/lists with every string redacted; a string under a key is a value of it."""
        return self._walk(obj, None, context)

    # -- internals -------------------------------------------------------------------------------

    def _walk(self, obj: Any, key: str | None, context: str | None) -> Any:
        if isinstance(obj, str):
            return self.redact_value(obj, key, context) if key is not None else self.redact(obj, context)
        if isinstance(obj, dict):
            return {k: self._walk(v, k if isinstance(k, str) else None, context) for k, v in obj.items()}
        if isinstance(obj, list | tuple):
            return type(obj)(self._walk(v, key, context) for v in obj)
        return obj

    def _found(self, kind: str, secret: str) -> None:
        self.findings[kind] += 1
        if self.on_secret is not None:
            self.on_secret(kind, secret)

    def _allowed(self, secret: str) -> bool:
        if secret in self._allow_exact:
            return True
        return self._allow_re is not None and self._allow_re.fullmatch(secret) is not None

    def _token_replacer(self, kind: str, group: int) -> Callable[[re.Match[str]], str]:
        def replace(match: re.Match[str]) -> str:
            start = match.start()
            if start and match.string[start - 1] in GLUED:
                return match.group(0)  # the end of a longer word, not a token
            return self._replace_group(match, group, kind)

        return replace

    def _group_replacer(self, kind: str, group: int) -> Callable[[re.Match[str]], str]:
        def replace(match: re.Match[str]) -> str:
            return self._replace_group(match, group, kind)

        return replace

    def _replace_group(self, match: re.Match[str], group: int | str, kind: str) -> str:
        if group == LONGEST_GROUP:
            spans = [g for g in range(1, (match.re.groups or 0) + 1) if len(match.group(g) or "") >= 16]
            group = max(spans, key=lambda g: len(match.group(g)), default=0)
        secret = match.group(group)
        whole = match.group(0)
        if not secret or _PLACEHOLDER.search(secret) or self._allowed(secret):
            return whole
        self._found(kind, secret)
        start, end = match.span(group)
        offset = match.start()
        return whole[: start - offset] + _placeholder(kind) + whole[end - offset :]

    def _command_replace(self, match: re.Match[str]) -> str:
        for group in ("val", "val2", "val3", "val4", "val5"):
            if match.group(group) is not None:
                return self._replace_group(match, group, "password")
        return match.group(0)

    def _prose_replace(self, match: re.Match[str]) -> str:
        value = match.group("val")
        if _REFERENCE.fullmatch(value) or value.lower() in _PROSE_NOT_A_PASSWORD:
            return match.group(0)  # "the password is required", "password: <your password>"
        return self._replace_group(match, "val", "password")

    def _prose_secret_replace(self, match: re.Match[str]) -> str:
        value = match.group("val")
        if _IDENTIFIER.fullmatch(value) and not _high_entropy(value) and "_" in value:
            return match.group(0)  # a name that holds the secret: "the key is API_KEY_2"
        if _NOT_A_TOKEN.fullmatch(value):
            return match.group(0)
        return self._replace_group(match, "val", "secret")

    def _aws_secrets_after_ids(self, text: str) -> str:
        first = _AWS_KEY_ID.search(text)
        if first is None:
            return text
        head, tail = text[: first.end()], text[first.end() :]
        return head + _AWS_SECRET_NEARBY.sub(self._group_replacer("aws-secret-key", 0), tail)

    def _auth_replace(self, match: re.Match[str]) -> str:
        return self._replace_group(match, 2, _AUTH_KINDS[match.group(1).lower()])

    def _value_kind(self, key: str, value: str, *, env_file: bool) -> str | None:
        """The kind to redact `value` of `key` as, or None to keep it."""
        if not value or _PLACEHOLDER.search(value) or self._allowed(value):
            return None
        if not any(c.isalnum() for c in value):
            return None  # `.*`, `***`, `--`: punctuation holds no secret
        if is_secret_key(key):
            if _REFERENCE.fullmatch(value) or "(" in value or _DOTTED_NAME.fullmatch(value):
                return None
            name = _normalized_name(key)
            if _PLAIN_WORDS.fullmatch(value) and not _PASSWORD_NAME.search(name):
                return None  # "token: Use shortened …", `unknown_key: "value"`: a key is never words
            if _WORD_JOINED.fullmatch(value) and _LOOKUP_KEY_NAME.fullmatch(name):
                return None  # `trailerKey = "Ephemeral-branch"`: a lookup key, not a credential
            if _NOT_A_VALUE.match(value) or _PLACEHOLDER_VALUE.search(value):
                return None
            if _IDENTIFIER.fullmatch(value) and (
                value.lower() in {key.lower(), key.rsplit(".", 1)[-1].lower()}
                or ("." in value and is_secret_key(value.rsplit(".", 1)[-1]))
            ):
                return None  # a variable holding the secret (`password=password`, `key: settings.api_key`)
            return "secret"
        if env_file and not _HARMLESS_ENV_VALUE.fullmatch(value) and not _REFERENCE.fullmatch(value):
            return "env-value"
        if _high_entropy(value) and not _NO_ENTROPY_NAME.fullmatch(_normalized_name(key)):
            return "high-entropy"
        return None

    def _kv_replace(self, match: re.Match[str], *, env_file: bool = False) -> str:
        quote, inner, end = _unquote(match.group("val"))
        kind = self._value_kind(match.group("key"), inner, env_file=env_file)
        if kind is None and quote and _MAYBE_SECRET.search(inner):
            # A quoted value kept whole may hold pairs of its own (`"note": "api-key: X"`, a JSON
            # string of escaped JSON): read inside it, escapes undone and redone.
            escaped = quote == '"' and '\\"' in inner
            text = self.redact(inner.replace('\\"', '"') if escaped else inner)
            if escaped:
                text = text.replace('"', '\\"')
            start, stop = match.span("val")
            whole, offset = match.group(0), match.start()
            return whole[: start - offset] + quote + text + end + whole[stop - offset :]
        if kind is None:
            return match.group(0)
        self._found(kind, inner)
        whole = match.group(0)
        start, stop = match.span("val")
        offset = match.start()
        return whole[: start - offset] + quote + _placeholder(kind) + end + whole[stop - offset :]


def redact_mapping(obj: Any, redactor: Redactor | None = None, context: str | None = None) -> Any:
    """A redacted copy of nested dict/list data (tool inputs, parsed JSON); keys are kept."""
    return (redactor or Redactor()).redact_mapping(obj, context)


# A line a person typed that is one token and nothing else: a pasted credential (a 32-hex deploy
# token, a UUID-shaped API key, a random string). Hex of hash sizes (40: a commit, 64: a sha256)
# is a hash, and a word, path, number or URL is none of these.
_PASTED = re.compile(
    r"[0-9a-fA-F]{32}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|(?=[A-Za-z0-9_.+/=-]*\d)(?=[A-Za-z0-9_.+/=-]*[A-Za-z])[A-Za-z0-9_.+/=-]{20,512}"
)
_PASTED_LINE = re.compile(
    r"^(?P<pre>[ \t]*[\"'`]?)(?P<val>[^\s\"'`]{20,512})(?P<post>[\"'`]?[ \t]*)$", re.MULTILINE
)


def _pasted_token(value: str) -> bool:
    if not _PASTED.fullmatch(value) or value.startswith(("/", "./", "http")) or "//" in value:
        return False
    if re.fullmatch(r"[0-9a-fA-F]{32}|[0-9a-fA-F-]{36}", value):
        return True
    if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}|v?\d[\d.+-]*", value):
        return False
    return _high_entropy(value) or (
        len(value) >= 24 and _shannon_entropy(value) >= 4.0 and not _WORDY.search(value)
    )


def redact_pasted_tokens(text: str) -> str:
    """What a person typed, with every line that is one secret-looking token and nothing else
    replaced: text typed by a user, never tool output (where a lone hash or id is ordinary)."""
    if len(text) < 20:
        return text

    def replace(match: re.Match[str]) -> str:
        if not _pasted_token(match.group("val")):
            return match.group(0)
        return match.group("pre") + _placeholder("pasted-token") + match.group("post")

    return _PASTED_LINE.sub(replace, text)
