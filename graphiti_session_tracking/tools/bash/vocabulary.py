"""What shell programs do: the kinds of command (intent, domain, confidence, activity signals), the
words that name targets, and the verdict types the judges return."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..model import BashCommandClassification, ToolDomain, ToolIntent
from ..signals import split_words

UNKNOWN_CONFIDENCE = 0.3
_MAX_TARGETS = 20
_MAX_TARGET_CHARS = 200
_I, _D = ToolIntent, ToolDomain


@dataclass(frozen=True)
class Kind:
    """A judgement about one segment. `significance` ranks segments of a compound command:
    0 navigation / no-op, 1 pipe filters and environment, 2 file operations, 3 running things,
    reading history, network, 4 building, linting, packages, commits, 5 tests."""

    intent: ToolIntent
    domain: ToolDomain
    confidence: float
    signals: Mapping[str, float]
    significance: int
    what: str


TEST = Kind(_I.VALIDATE, _D.TESTING, 0.9, {"testing": 0.8, "fixing": 0.2}, 5, "runs tests")
COVERAGE = Kind(_I.VALIDATE, _D.TESTING, 0.9, {"testing": 0.8, "reviewing": 0.2}, 5, "measures test coverage")
BENCH = Kind(_I.VALIDATE, _D.TESTING, 0.85, {"testing": 0.5, "refactoring": 0.2}, 4, "runs benchmarks")
CHECK = Kind(_I.VALIDATE, _D.CODE, 0.8, {"testing": 0.4, "reviewing": 0.3, "fixing": 0.2}, 4, "runs checks")
LINT = Kind(
    _I.VALIDATE, _D.CODE, 0.9, {"reviewing": 0.4, "fixing": 0.3, "testing": 0.2}, 4, "lints or type-checks"
)
FORMAT = Kind(_I.TRANSFORM, _D.CODE, 0.85, {"refactoring": 0.3, "reviewing": 0.2}, 4, "formats code")
BUILD = Kind(_I.EXECUTE, _D.CODE, 0.85, {"building": 0.6, "testing": 0.1}, 4, "builds the project")
DOCS_BUILD = Kind(_I.TRANSFORM, _D.DOCUMENTATION, 0.85, {"documenting": 0.7}, 4, "builds documentation")
RUN = Kind(_I.EXECUTE, _D.PROCESS, 0.7, {"building": 0.3, "testing": 0.3}, 3, "runs the program")
SCRIPT = Kind(_I.EXECUTE, _D.PROCESS, 0.6, {"building": 0.2, "testing": 0.2}, 3, "runs a script")
INLINE = Kind(_I.EXECUTE, _D.CODE, 0.65, {"exploring": 0.3, "testing": 0.2}, 3, "runs inline code")
REPL = Kind(_I.EXECUTE, _D.CODE, 0.6, {"exploring": 0.4}, 3, "starts an interpreter")
INLINE_EDIT = Kind(
    _I.MODIFY, _D.CODE, 0.7, {"refactoring": 0.3, "fixing": 0.3}, 3, "writes files from inline code"
)
SERVE = Kind(_I.EXECUTE, _D.PROCESS, 0.75, {"building": 0.3, "testing": 0.3}, 3, "starts a dev server")
PKG_INSTALL = Kind(
    _I.CONFIGURE, _D.PACKAGE, 0.9, {"configuring": 0.7, "building": 0.2}, 4, "installs packages"
)
PKG_REMOVE = Kind(
    _I.DELETE, _D.PACKAGE, 0.85, {"configuring": 0.6, "refactoring": 0.1}, 4, "removes packages"
)
PKG_READ = Kind(_I.READ, _D.PACKAGE, 0.85, {"exploring": 0.4, "configuring": 0.2}, 3, "inspects packages")
PKG_AUDIT = Kind(_I.VALIDATE, _D.PACKAGE, 0.85, {"reviewing": 0.5, "configuring": 0.2}, 4, "audits packages")
PKG_PUBLISH = Kind(_I.COMMUNICATE, _D.PACKAGE, 0.85, {"building": 0.3, "configuring": 0.3}, 4, "publishes")
ENV_SETUP = Kind(_I.CONFIGURE, _D.PACKAGE, 0.85, {"configuring": 0.8}, 4, "sets up a project or environment")
CLEAN = Kind(_I.DELETE, _D.FILESYSTEM, 0.8, {"configuring": 0.2, "building": 0.1}, 3, "cleans build output")
FILE_LIST = Kind(_I.READ, _D.FILESYSTEM, 0.9, {"exploring": 0.5}, 2, "lists files")
FILE_READ = Kind(_I.READ, _D.FILESYSTEM, 0.85, {"exploring": 0.5, "reviewing": 0.2}, 2, "reads files")
FILE_INFO = Kind(_I.READ, _D.FILESYSTEM, 0.85, {"exploring": 0.3}, 1, "inspects files")
FILE_DIFF = Kind(_I.READ, _D.FILESYSTEM, 0.85, {"reviewing": 0.5, "exploring": 0.2}, 2, "compares files")
FILTER = Kind(_I.TRANSFORM, _D.FILESYSTEM, 0.85, {}, 1, "filters output")
CODE_SEARCH = Kind(_I.SEARCH, _D.CODE, 0.9, {"exploring": 0.5, "fixing": 0.1}, 2, "searches text")
FILE_FIND = Kind(_I.SEARCH, _D.FILESYSTEM, 0.9, {"exploring": 0.5}, 2, "finds files")
FILE_CREATE = Kind(_I.CREATE, _D.FILESYSTEM, 0.85, {"building": 0.3}, 2, "creates files")
FILE_COPY = Kind(_I.CREATE, _D.FILESYSTEM, 0.8, {"building": 0.2, "refactoring": 0.1}, 2, "copies files")
FILE_MOVE = Kind(_I.MODIFY, _D.FILESYSTEM, 0.85, {"refactoring": 0.4}, 2, "moves files")
FILE_DELETE = Kind(_I.DELETE, _D.FILESYSTEM, 0.85, {"refactoring": 0.3, "fixing": 0.1}, 2, "deletes files")
PERMS = Kind(_I.CONFIGURE, _D.FILESYSTEM, 0.85, {"configuring": 0.5}, 2, "changes permissions")
LINK = Kind(_I.CREATE, _D.FILESYSTEM, 0.8, {"configuring": 0.4}, 2, "links files")
ARCHIVE = Kind(_I.TRANSFORM, _D.FILESYSTEM, 0.8, {"configuring": 0.2, "building": 0.1}, 2, "packs or unpacks")
EDIT_IN_PLACE = Kind(_I.MODIFY, _D.CODE, 0.75, {"refactoring": 0.3, "fixing": 0.3}, 3, "edits files in place")
PATCH = Kind(_I.MODIFY, _D.CODE, 0.8, {"fixing": 0.4, "refactoring": 0.2}, 3, "applies a patch")
EDITOR = Kind(_I.MODIFY, _D.CODE, 0.6, {"building": 0.2, "fixing": 0.2}, 2, "opens an editor")
HTTP = Kind(_I.COMMUNICATE, _D.NETWORK, 0.8, {"exploring": 0.4, "testing": 0.2}, 3, "makes an HTTP request")
HTTP_LOCAL = Kind(_I.VALIDATE, _D.NETWORK, 0.8, {"testing": 0.5, "fixing": 0.2}, 3, "probes a local service")
REMOTE = Kind(_I.COMMUNICATE, _D.NETWORK, 0.8, {"configuring": 0.4}, 3, "works on a remote host")
NET_DIAG = Kind(
    _I.READ, _D.NETWORK, 0.8, {"fixing": 0.3, "exploring": 0.3, "configuring": 0.2}, 3, "checks the network"
)
PROC_READ = Kind(_I.READ, _D.PROCESS, 0.85, {"exploring": 0.3, "fixing": 0.2}, 2, "inspects processes")
PROC_STOP = Kind(_I.EXECUTE, _D.PROCESS, 0.85, {"configuring": 0.1, "fixing": 0.1}, 2, "stops processes")
SERVICE_READ = Kind(_I.READ, _D.PROCESS, 0.85, {"fixing": 0.3, "exploring": 0.3}, 3, "inspects services")
SERVICE_SET = Kind(_I.CONFIGURE, _D.PROCESS, 0.85, {"configuring": 0.7}, 3, "manages services")
ENV_READ = Kind(
    _I.READ, _D.PROCESS, 0.85, {"exploring": 0.3, "configuring": 0.1}, 1, "inspects the environment"
)
ENV_SET = Kind(_I.CONFIGURE, _D.PROCESS, 0.8, {"configuring": 0.4}, 1, "sets the environment")
NOOP = Kind(_I.EXECUTE, _D.PROCESS, 0.8, {}, 0, "shell bookkeeping")
VCS_READ = Kind(
    _I.READ, _D.VERSION_CONTROL, 0.9, {"reviewing": 0.4, "exploring": 0.2}, 3, "reads repository state"
)
VCS_SEARCH = Kind(
    _I.SEARCH, _D.VERSION_CONTROL, 0.9, {"exploring": 0.5, "fixing": 0.1}, 3, "searches the repository"
)
VCS_STAGE = Kind(_I.MODIFY, _D.VERSION_CONTROL, 0.9, {"building": 0.1}, 3, "stages changes")
VCS_COMMIT = Kind(_I.CREATE, _D.VERSION_CONTROL, 0.9, {"building": 0.2}, 4, "commits")
VCS_SYNC = Kind(_I.COMMUNICATE, _D.VERSION_CONTROL, 0.9, {"building": 0.1}, 4, "syncs with a remote")
VCS_CLONE = Kind(
    _I.CREATE, _D.VERSION_CONTROL, 0.9, {"exploring": 0.3, "configuring": 0.3}, 4, "clones a repository"
)
VCS_BRANCH = Kind(
    _I.MODIFY, _D.VERSION_CONTROL, 0.85, {"building": 0.1, "refactoring": 0.1}, 3, "works with branches"
)
VCS_INTEGRATE = Kind(
    _I.MODIFY, _D.VERSION_CONTROL, 0.85, {"building": 0.2, "fixing": 0.1}, 4, "merges history"
)
VCS_UNDO = Kind(_I.MODIFY, _D.VERSION_CONTROL, 0.85, {"fixing": 0.3}, 4, "undoes changes")
VCS_DELETE = Kind(_I.DELETE, _D.VERSION_CONTROL, 0.85, {"refactoring": 0.2}, 3, "removes tracked things")
VCS_SETUP = Kind(_I.CONFIGURE, _D.VERSION_CONTROL, 0.9, {"configuring": 0.5}, 4, "configures the repository")
VCS_BISECT = Kind(
    _I.VALIDATE, _D.VERSION_CONTROL, 0.85, {"fixing": 0.5, "testing": 0.2}, 4, "bisects history"
)
VCS_OTHER = Kind(_I.EXECUTE, _D.VERSION_CONTROL, 0.7, {"building": 0.1}, 3, "runs a git command")
REVIEW_POST = Kind(
    _I.COMMUNICATE, _D.VERSION_CONTROL, 0.85, {"building": 0.2, "documenting": 0.1}, 4, "posts to the forge"
)
DB_QUERY = Kind(_I.EXECUTE, _D.DATABASE, 0.8, {"exploring": 0.3, "fixing": 0.2}, 3, "queries a database")
DB_MIGRATE = Kind(
    _I.CONFIGURE, _D.DATABASE, 0.85, {"configuring": 0.4, "building": 0.3}, 4, "migrates a database"
)
CONTAINER_READ = Kind(_I.READ, _D.PROCESS, 0.85, {"exploring": 0.3, "fixing": 0.2}, 3, "inspects containers")
CONTAINER_BUILD = Kind(
    _I.EXECUTE, _D.PROCESS, 0.85, {"building": 0.4, "configuring": 0.4}, 4, "builds an image"
)
CONTAINER_RUN = Kind(
    _I.EXECUTE, _D.PROCESS, 0.8, {"configuring": 0.3, "testing": 0.2, "building": 0.1}, 4, "runs containers"
)
CONTAINER_STOP = Kind(_I.DELETE, _D.PROCESS, 0.8, {"configuring": 0.3}, 3, "stops or removes containers")
DEPLOY = Kind(_I.CONFIGURE, _D.PROCESS, 0.85, {"configuring": 0.8}, 4, "changes deployed infrastructure")
INFRA_PLAN = Kind(
    _I.VALIDATE, _D.PROCESS, 0.85, {"configuring": 0.5, "reviewing": 0.3}, 4, "plans infrastructure"
)
CARGO_EXTRA = Kind(_I.EXECUTE, _D.CODE, 0.6, {"building": 0.3}, 3, "runs a cargo subcommand")
PKG_SCRIPT = Kind(_I.EXECUTE, _D.CODE, 0.6, {"building": 0.3, "testing": 0.1}, 3, "runs a project script")
GENERATE = Kind(
    _I.CREATE, _D.CODE, 0.7, {"building": 0.5, "configuring": 0.2}, 4, "scaffolds or generates code"
)

# Script / target names (npm run X, make X, just X, ./scripts/X.sh): their words name the job.
_TARGET_WORDS: list[tuple[frozenset[str], Kind]] = [
    (frozenset({"coverage", "cov"}), COVERAGE),
    (frozenset({"test", "tests", "spec", "e2e", "unit", "integration", "pytest", "jest", "vitest"}), TEST),
    (frozenset({"bench", "benchmark", "benchmarks"}), BENCH),
    (frozenset({"lint", "typecheck", "types", "mypy", "ruff", "eslint", "clippy", "vet", "pyright"}), LINT),
    (frozenset({"check", "checks", "verify", "validate", "ci", "precommit"}), CHECK),
    (frozenset({"format", "fmt", "prettier", "black", "isort"}), FORMAT),
    (frozenset({"doc", "docs", "documentation", "mkdocs", "sphinx"}), DOCS_BUILD),
    (frozenset({"build", "compile", "bundle", "dist", "package", "wheel", "release", "all"}), BUILD),
    (frozenset({"dev", "start", "serve", "server", "watch", "preview", "run"}), SERVE),
    (frozenset({"install", "setup", "bootstrap", "deps", "init", "sync", "venv"}), ENV_SETUP),
    (frozenset({"migrate", "migration", "migrations", "db"}), DB_MIGRATE),
    (frozenset({"deploy", "publish", "upload"}), PKG_PUBLISH),
    (frozenset({"clean", "clear", "distclean"}), CLEAN),
    (frozenset({"gen", "generate", "codegen", "scaffold"}), GENERATE),
]


def _table(*groups: tuple[str, Kind]) -> dict[str, Kind]:
    """Subcommand → Kind, written as (space-separated subcommands, Kind) groups."""
    return {name: kind for names, kind in groups for name in names.split()}


def target_kind(name: str) -> Kind | None:
    """What a script or build target is for, from the words of its name (`test:unit` → tests)."""
    words = set(split_words(name))
    for keys, kind in _TARGET_WORDS:
        if words & keys:
            return kind
    return None


@dataclass
class Segment:
    """One simple command of a command line."""

    words: list[str]
    writes: list[str] = field(default_factory=list)
    piped: bool = False  # its input is another command's output


@dataclass(frozen=True)
class SegmentVerdict:
    kind: Kind
    base: str
    subcommand: str | None
    args: list[str]
    note: str = ""
    signals: Mapping[str, float] | None = None  # overrides kind.signals
    domain: ToolDomain | None = None  # overrides kind.domain
    confidence: float | None = None  # overrides kind.confidence

    @property
    def final_signals(self) -> Mapping[str, float]:
        return self.kind.signals if self.signals is None else self.signals

    @property
    def final_confidence(self) -> float:
        return self.kind.confidence if self.confidence is None else self.confidence


@dataclass(frozen=True)
class BashAnalysis:
    """The heuristic classification, and whether an LLM should judge it instead.

    `unknown_executable` is what could not be placed; it is also the key under which an LLM's
    answer is remembered for later commands that run the same program.
    """

    classification: BashCommandClassification
    needs_llm: bool
    unknown_executable: str | None = None
