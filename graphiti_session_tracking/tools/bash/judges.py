"""One judge per program family: what a segment does, from its program, subcommand and arguments."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from ..files import FileKind, file_kind, file_signals, kind_domain
from ..model import ToolIntent
from ..signals import merge_signals
from .shell import _DEVICES, _skip_options
from .vocabulary import (
    _D,
    _I,
    ARCHIVE,
    BENCH,
    BUILD,
    CARGO_EXTRA,
    CHECK,
    CLEAN,
    CODE_SEARCH,
    CONTAINER_BUILD,
    CONTAINER_READ,
    CONTAINER_RUN,
    CONTAINER_STOP,
    COVERAGE,
    DB_MIGRATE,
    DB_QUERY,
    DEPLOY,
    DOCS_BUILD,
    EDIT_IN_PLACE,
    EDITOR,
    ENV_READ,
    ENV_SET,
    ENV_SETUP,
    FILE_COPY,
    FILE_CREATE,
    FILE_DELETE,
    FILE_DIFF,
    FILE_FIND,
    FILE_INFO,
    FILE_LIST,
    FILE_MOVE,
    FILE_READ,
    FILTER,
    FORMAT,
    GENERATE,
    HTTP,
    HTTP_LOCAL,
    INFRA_PLAN,
    INLINE,
    LINK,
    LINT,
    NET_DIAG,
    NOOP,
    PATCH,
    PERMS,
    PKG_AUDIT,
    PKG_INSTALL,
    PKG_PUBLISH,
    PKG_READ,
    PKG_REMOVE,
    PKG_SCRIPT,
    PROC_READ,
    PROC_STOP,
    REMOTE,
    REPL,
    REVIEW_POST,
    RUN,
    SCRIPT,
    SERVE,
    SERVICE_READ,
    SERVICE_SET,
    TEST,
    VCS_BISECT,
    VCS_BRANCH,
    VCS_CLONE,
    VCS_COMMIT,
    VCS_DELETE,
    VCS_INTEGRATE,
    VCS_OTHER,
    VCS_READ,
    VCS_SEARCH,
    VCS_SETUP,
    VCS_STAGE,
    VCS_SYNC,
    VCS_UNDO,
    Kind,
    Segment,
    SegmentVerdict,
    _table,
    target_kind,
)

if TYPE_CHECKING:
    from .analyzer import BashAnalyzer


# --- segment judges ---------------------------------------------------------------------------

Judge = Callable[[str, list[str], Segment, "BashAnalyzer"], SegmentVerdict | None]


def _each(names: str, judge: Judge) -> dict[str, Judge]:
    """One judge for many executables (space-separated names), to keep the table readable."""
    return dict.fromkeys(names.split(), judge)


def _positionals(args: list[str], value_flags: frozenset[str] = frozenset()) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("-") and arg != "-":
            i += 2 if arg in value_flags else 1
            continue
        out.append(arg)
        i += 1
    return out


def _first_positional(
    args: list[str], value_flags: frozenset[str] = frozenset()
) -> tuple[str | None, list[str]]:
    """The subcommand (first non-option word) and the words after it."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return (args[i + 1], args[i + 2 :]) if i + 1 < len(args) else (None, [])
        if arg.startswith("-") and arg != "-":
            i += 2 if arg in value_flags and "=" not in arg else 1
            continue
        return arg, args[i + 1 :]
    return None, []


def _simple(kind: Kind) -> Judge:
    def judge(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
        return SegmentVerdict(kind, prog, None, args)

    return judge


def _by_subcommand(
    table: Mapping[str, Kind], default: Kind | None, value_flags: frozenset[str] = frozenset()
) -> Judge:
    """Commands whose first word after the options says what they do (`cargo test`, `pip install`)."""

    def judge(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
        sub, rest = _first_positional(args, value_flags)
        if sub is not None and sub in table:
            return SegmentVerdict(table[sub], prog, sub, rest)
        if default is None:
            return None
        if sub is None and any(a in ("--version", "-V", "--help", "-h") for a in args):
            return SegmentVerdict(ENV_READ, prog, None, args)
        return SegmentVerdict(default, prog, sub, rest if sub is not None else args)

    return judge


def _filter_or_read_verdict(kind: Kind, prog: str, args: list[str], seg: Segment) -> SegmentVerdict:
    if seg.piped or not _positionals(args):
        return SegmentVerdict(FILTER, prog, None, args)
    return _file_read(kind, prog, args)


def _filter_or_read(read_kind: Kind) -> Judge:
    """`head`, `sort`, `jq`…: a filter inside a pipeline, a file read on their own."""

    def judge(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
        return _filter_or_read_verdict(read_kind, prog, args, seg)

    return judge


def _file_read(kind: Kind, prog: str, args: list[str]) -> SegmentVerdict:
    files = _positionals(args)
    kinds = {file_kind(f) for f in files}
    if len(kinds) == 1:
        only = kinds.pop()
        if only is not FileKind.OTHER:
            return SegmentVerdict(
                kind, prog, None, args, signals=file_signals(ToolIntent.READ, only), domain=kind_domain(only)
            )
    return SegmentVerdict(kind, prog, None, args)


def _reader(kind: Kind) -> Judge:
    def judge(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
        if seg.writes and prog == "cat":
            return _file_write(prog, args, seg.writes)
        return _file_read(kind, prog, args)

    return judge


def _file_write(prog: str, args: list[str], files: list[str]) -> SegmentVerdict:
    kinds = [file_kind(f) for f in files]
    signals = (
        merge_signals(*(file_signals(ToolIntent.CREATE, k) for k in kinds)) if kinds else FILE_CREATE.signals
    )
    domain = kind_domain(kinds[0]) if len(set(kinds)) == 1 else _D.FILESYSTEM
    return SegmentVerdict(
        FILE_CREATE,
        prog,
        None,
        args + files,
        note="writes " + ", ".join(files),
        signals=signals,
        domain=domain,
    )


def _file_op(kind: Kind, intent: ToolIntent) -> Judge:
    """rm / touch / mkdir: the kind of the files named refines the signals."""

    def judge(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
        kinds = {file_kind(f) for f in _positionals(args)} - {FileKind.OTHER}
        if len(kinds) == 1:
            only = kinds.pop()
            return SegmentVerdict(
                kind, prog, None, args, signals=file_signals(intent, only), domain=kind_domain(only)
            )
        return SegmentVerdict(kind, prog, None, args)

    return judge


def _echo(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    if seg.writes:
        return _file_write(prog, args, seg.writes)
    return SegmentVerdict(NOOP, prog, None, args, note="prints text")


def _tee(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    files = [f for f in _positionals(args) if f not in _DEVICES]
    if not files:
        return SegmentVerdict(FILTER, prog, None, args)
    verdict = _file_write(prog, [a for a in args if a.startswith("-")], files)
    return SegmentVerdict(
        FILTER if seg.piped else FILE_CREATE,
        prog,
        None,
        verdict.args,
        verdict.note,
        verdict.signals,
        verdict.domain,
    )


def _sed(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    if any(a == "-i" or a.startswith("-i") or a == "--in-place" or a.startswith("--in-place=") for a in args):
        return SegmentVerdict(EDIT_IN_PLACE, prog, None, args)
    return _filter_or_read_verdict(FILE_READ, prog, args, seg)


def _perl(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    if any(re.match(r"^-[a-zA-Z]*i", a) for a in args):  # -i, -pi, -pi.bak: edits in place
        return SegmentVerdict(EDIT_IN_PLACE, prog, None, args)
    return _interpreter(prog, args, seg, analyzer) or SegmentVerdict(SCRIPT, prog, None, args)


def _curl(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    urls = _positionals(args)
    if any(re.search(r"(^|//)(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])([:/]|$)", u) for u in urls):
        return SegmentVerdict(HTTP_LOCAL, prog, None, args)
    return SegmentVerdict(HTTP, prog, None, args)


def _systemctl(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    sub, rest = _first_positional(args)
    if sub in (None, "status", "list-units", "is-active", "is-enabled", "show", "cat", "list-unit-files"):
        return SegmentVerdict(SERVICE_READ, prog, sub, rest)
    return SegmentVerdict(SERVICE_SET, prog, sub, rest)


def _delegate(words: list[str], analyzer: BashAnalyzer, seg: Segment, note: str) -> SegmentVerdict | None:
    """Judge `words` as the command a runner (`uv run`, `npx`, `python -m`) starts."""
    if not words:
        return None
    inner = analyzer.judge_segment(Segment(words=words, writes=seg.writes, piped=seg.piped))
    if inner is None:
        return None
    return SegmentVerdict(
        inner.kind,
        inner.base,
        inner.subcommand,
        inner.args,
        note=f"{note}; {inner.note}" if inner.note else note,
        signals=inner.signals,
        domain=inner.domain,
        confidence=inner.confidence,
    )


def _script_verdict(prog: str, script: str, args: list[str], base_kind: Kind = SCRIPT) -> SegmentVerdict:
    """A script file: its name's words may say what it is for (`run_tests.sh`, `lint.py`)."""
    stem = posixpath.splitext(posixpath.basename(script))[0]
    if stem == "manage":
        sub, rest = _first_positional(args)
        django = {
            "test": TEST,
            "migrate": DB_MIGRATE,
            "makemigrations": DB_MIGRATE,
            "runserver": SERVE,
            "shell": REPL,
        }
        if sub in django:
            return SegmentVerdict(django[sub], prog, sub, rest, note=f"django {script}")
    kind = target_kind(stem)
    if kind is not None:
        return SegmentVerdict(
            kind, prog, None, [script, *args], note=f"script {script}", confidence=min(kind.confidence, 0.7)
        )
    return SegmentVerdict(base_kind, prog, None, [script, *args], note=f"script {script}")


_PY_VALUE_FLAGS = frozenset({"-W", "-X", "-Q"})


def _interpreter(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
    """python / node / ruby …: `-m module`, `-c code`, a script, or a REPL."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-m",) and i + 1 < len(args):
            module = args[i + 1]
            inner = _delegate(
                [module.split(".")[0] if module.startswith("pip.") else module, *args[i + 2 :]],
                analyzer,
                seg,
                f"via {prog} -m",
            )
            if inner is not None:
                return inner
            return SegmentVerdict(
                RUN, prog, module, args[i + 2 :], note=f"runs module {module}", confidence=0.6
            )
        if arg in ("-c", "-e", "--eval", "-p", "--print", "-r"):
            return SegmentVerdict(INLINE, prog, None, args[i + 2 :])
        if arg in ("--version", "-V", "-v") and prog != "node":
            return SegmentVerdict(ENV_READ, prog, None, args)
        if arg == "--version":
            return SegmentVerdict(ENV_READ, prog, None, args)
        if arg.startswith("-"):
            i += 2 if arg in _PY_VALUE_FLAGS else 1
            continue
        return _script_verdict(prog, arg, args[i + 1 :])
    return SegmentVerdict(REPL, prog, None, args)


def _shell(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
    """`bash -c "…"` is judged by the inner command line; `bash x.sh` by the script."""
    for i, arg in enumerate(args):
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:] and i + 1 < len(args):
            inner = analyzer.judge_line(args[i + 1])
            if inner is None:
                return None
            return SegmentVerdict(
                inner.kind,
                inner.base,
                inner.subcommand,
                inner.args,
                f"via {prog} -c",
                inner.signals,
                inner.domain,
                inner.confidence,
            )
        if not arg.startswith("-"):
            return _script_verdict(prog, arg, args[i + 1 :])
    return SegmentVerdict(REPL, prog, None, args)


def _eval(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
    return analyzer.judge_line(" ".join(args))


def _runner(value_flags: frozenset[str] = frozenset()) -> Judge:
    """`npx X`, `uvx X`, `bunx X`: run X (installing it on the fly)."""

    def judge(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
        rest = _skip_options(args, value_flags)
        return _delegate(rest, analyzer, seg, f"via {prog}")

    return judge


def _with_run(
    table: Mapping[str, Kind], default: Kind | None, run_words: frozenset[str] = frozenset({"run"})
) -> Judge:
    """Project tools with a `run` that starts another program (`uv run`, `poetry run`)."""
    base = _by_subcommand(table, default)

    def judge(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
        sub, rest = _first_positional(
            args, frozenset({"--python", "-p", "--with", "--directory", "--project", "-C"})
        )
        if sub in run_words:
            return _delegate(
                _skip_options(rest, frozenset({"--with", "--python", "-p", "--env-file"})),
                analyzer,
                seg,
                f"via {prog} {sub}",
            )
        return base(prog, args, seg, analyzer)

    return judge


_PIP: dict[str, Kind] = _table(
    ("install download compile sync", PKG_INSTALL),
    ("uninstall", PKG_REMOVE),
    ("list show freeze tree index search", PKG_READ),
    ("check", PKG_AUDIT),
    ("wheel", BUILD),
    ("config", ENV_SETUP),
)
_UV: dict[str, Kind] = _table(
    ("add sync lock", PKG_INSTALL),
    ("remove", PKG_REMOVE),
    ("venv init python self", ENV_SETUP),
    ("build", BUILD),
    ("publish", PKG_PUBLISH),
    ("tree export version", PKG_READ),
    ("cache", CLEAN),
)


def _uv(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
    sub, rest = _first_positional(args, frozenset({"--directory", "--project", "-p", "--python"}))
    if sub == "pip":
        inner = _by_subcommand(_PIP, PKG_INSTALL)("pip", rest, seg, analyzer)
        return (
            SegmentVerdict(inner.kind, prog, f"pip {inner.subcommand or ''}".strip(), inner.args)
            if inner
            else None
        )
    if sub == "tool":
        action, more = _first_positional(rest)
        if action == "run":
            return _delegate(
                _skip_options(more, frozenset({"--from", "--with"})), analyzer, seg, "via uv tool run"
            )
        return SegmentVerdict(
            PKG_INSTALL if action in ("install", "upgrade") else PKG_READ, prog, f"tool {action}", more
        )
    return _with_run(_UV, PKG_INSTALL)(prog, args, seg, analyzer)


_POETRY: dict[str, Kind] = _table(
    ("add install update lock sync", PKG_INSTALL),
    ("remove uninstall", PKG_REMOVE),
    ("show list version", PKG_READ),
    ("check", PKG_AUDIT),
    ("build", BUILD),
    ("publish", PKG_PUBLISH),
    ("init new shell env create config", ENV_SETUP),
    ("test", TEST),
    ("fmt", FORMAT),
    ("lint", LINT),
)

_NODE_PM: dict[str, Kind] = _table(
    ("install i ci add update up upgrade link", PKG_INSTALL),
    ("uninstall remove rm un", PKG_REMOVE),
    ("list ls outdated view info why explain version", PKG_READ),
    ("audit", PKG_AUDIT),
    ("test t tst", TEST),
    ("start", SERVE),
    ("init create config", ENV_SETUP),
    ("publish", PKG_PUBLISH),
    ("pack build", BUILD),
    ("cache", CLEAN),
)


def _node_pm(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
    """npm / yarn / pnpm / bun: packages, scripts (`run X`, or `yarn X` directly), and exec."""
    sub, rest = _first_positional(
        args, frozenset({"--prefix", "-C", "--dir", "--filter", "-F", "--cwd", "-w", "--workspace"})
    )
    if sub is None:
        if prog in ("yarn", "pnpm", "bun") and not args:
            return SegmentVerdict(PKG_INSTALL, prog, None, [])
        return _by_subcommand(_NODE_PM, PKG_READ)(prog, args, seg, analyzer)
    if sub in ("exec", "dlx", "x"):
        return _delegate(
            _skip_options(rest, frozenset({"-p", "--package", "-c"})), analyzer, seg, f"via {prog} {sub}"
        )
    if sub in ("run", "run-script"):
        script, more = _first_positional(rest)
        if script is None:
            return SegmentVerdict(PKG_READ, prog, sub, rest, note="lists scripts")
        if prog == "bun" and ("/" in script or "." in script):
            return _script_verdict(prog, script, more, RUN)
        return SegmentVerdict(
            target_kind(script) or PKG_SCRIPT, prog, script, more, note=f"script {script!r}"
        )
    if sub in _NODE_PM:
        return SegmentVerdict(_NODE_PM[sub], prog, sub, rest)
    if prog in ("yarn", "pnpm", "bun"):  # `yarn lint` runs the `lint` script
        return SegmentVerdict(target_kind(sub) or PKG_SCRIPT, prog, sub, rest, note=f"script {sub!r}")
    return SegmentVerdict(PKG_READ, prog, sub, rest, confidence=0.5)


def _make_like(value_flags: frozenset[str]) -> Judge:
    """make / just / task: judged by the target's name; no target is the default build."""

    def judge(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
        targets = [a for a in _positionals(args, value_flags) if "=" not in a]
        if not targets:
            return SegmentVerdict(BUILD, prog, None, args, note="default target")
        kinds = [target_kind(t) for t in targets]
        known = [(k, t) for k, t in zip(kinds, targets, strict=True) if k is not None]
        if not known:
            return SegmentVerdict(PKG_SCRIPT, prog, targets[0], targets[1:], note=f"target {targets[0]!r}")
        kind, target = max(known, key=lambda kt: kt[0].significance)
        return SegmentVerdict(
            kind, prog, target, [t for t in targets if t != target], note=f"target {target!r}"
        )

    return judge


_TASK_FLAGS = frozenset(
    {"-C", "--cd", "-j", "--jobs", "-E", "--env", "-f", "--file", "-d", "--justfile", "-t"}
)
_MAKE_LIKE = _make_like(_TASK_FLAGS)
_MISE: dict[str, Kind] = _table(
    (
        "install i use u upgrade up uninstall prune trust set unset settings plugins plugin link sync",
        ENV_SETUP,
    ),
    ("implode self-update activate", ENV_SETUP),
    ("ls list current where which doctor env tasks outdated version latest ls-remote bin-paths", ENV_READ),
    ("config cfg search", ENV_READ),
)


def _mise(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
    """`mise run lint:go` (or `mise lint:go`) runs that task, judged by its name like a make target,
    so `mise run test` is not `mise run check`; `mise exec … -- cmd` runs cmd; the rest set tools
    up or read them."""
    sub, rest = _first_positional(args, _TASK_FLAGS)
    if sub in ("exec", "x"):
        after = rest[rest.index("--") + 1 :] if "--" in rest else []
        return (
            _delegate(after, analyzer, seg, f"via {prog} {sub}")
            if after
            else SegmentVerdict(ENV_SETUP, prog, sub, rest)
        )
    if sub in ("run", "r"):
        if not _positionals(rest, _TASK_FLAGS):
            return SegmentVerdict(PKG_READ, prog, sub, rest, note="lists tasks")  # it asks which to run
        return _MAKE_LIKE(prog, rest, seg, analyzer)
    if sub is None or sub in _MISE:
        return SegmentVerdict(_MISE[sub] if sub else ENV_READ, prog, sub, rest)
    return _MAKE_LIKE(prog, args, seg, analyzer)  # a task named directly


_GIT_VALUE_FLAGS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_GIT: dict[str, Kind] = _table(
    (
        "status log diff show blame reflog shortlog describe ls-files ls-tree ls-remote rev-parse rev-list cat-file whatchanged range-diff",
        VCS_READ,
    ),
    ("grep", VCS_SEARCH),
    ("add", VCS_STAGE),
    ("commit tag notes", VCS_COMMIT),
    ("push pull fetch", VCS_SYNC),
    ("clone", VCS_CLONE),
    ("checkout switch branch stash worktree", VCS_BRANCH),
    ("merge rebase cherry-pick am apply", VCS_INTEGRATE),
    ("reset revert restore", VCS_UNDO),
    ("rm clean", VCS_DELETE),
    ("mv", FILE_MOVE),
    ("init config remote submodule lfs", VCS_SETUP),
    ("bisect", VCS_BISECT),
    ("gc fsck", VCS_OTHER),
)


# `git tag` options that list or check tags (`-n` lists with messages, `-v` verifies) rather than
# create, move or delete one; the filters name a commit, which is then no new tag's name.
_TAG_FILTERS = frozenset({"--contains", "--no-contains", "--merged", "--no-merged", "--points-at"})
_TAG_LISTING = _TAG_FILTERS | {"-l", "--list", "-n", "--sort", "--format", "--column", "-v", "--verify"}


def _git(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    sub, rest = _first_positional(args, _GIT_VALUE_FLAGS)
    if sub is None:
        return SegmentVerdict(ENV_READ if args else VCS_OTHER, prog, None, args)
    kind = _GIT.get(sub, VCS_OTHER)
    positional = _positionals(rest, frozenset({"-m", "--message", "-F", "--file", "-b", "-B", "-c", "-C"}))
    if sub == "branch" and (not positional or any(a in ("-a", "-r", "--list", "-v", "-vv") for a in rest)):
        kind = VCS_READ
    elif sub == "branch" and any(a in ("-d", "-D", "--delete") for a in rest):
        kind = VCS_DELETE
    elif sub in ("stash", "remote", "tag", "worktree", "submodule") and (
        not positional or positional[0] in ("list", "show", "-v")
    ):
        kind = VCS_READ
    elif sub == "tag" and any(a.split("=", 1)[0] in _TAG_LISTING for a in rest):
        kind = VCS_READ  # `git tag --contains abc123`: which tags hold it; the hash is no new tag
    elif sub == "checkout" and "--" in rest:
        kind = VCS_UNDO
    elif sub == "config" and (
        any(a in ("--get", "--list", "-l", "--get-all") for a in rest) or len(positional) == 1
    ):
        kind = VCS_READ
    if sub in ("commit", "tag", "notes"):  # the message is text, not a target
        return SegmentVerdict(kind, prog, sub, [a for a in rest if a.startswith("-")])
    return SegmentVerdict(kind, prog, sub, rest)


_GH_READ = frozenset({"view", "list", "diff", "checks", "status", "watch", "download", "browse"})


def _gh(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    group, rest = _first_positional(args, frozenset({"-R", "--repo"}))
    action, more = _first_positional(rest, frozenset({"-R", "--repo"}))
    sub = f"{group} {action}" if group and action else group
    if group == "api":
        return SegmentVerdict(HTTP, prog, group, rest)
    if group in ("auth", "config", "extension", "secret", "variable"):
        return SegmentVerdict(ENV_SETUP if action not in ("status", "list") else ENV_READ, prog, sub, more)
    if action in _GH_READ or group in ("search", "status", "browse"):
        return SegmentVerdict(VCS_READ, prog, sub, more)
    if action == "merge":
        return SegmentVerdict(VCS_INTEGRATE, prog, sub, more)
    if action == "checkout":
        return SegmentVerdict(VCS_BRANCH, prog, sub, more)
    if group == "repo" and action == "clone":
        return SegmentVerdict(VCS_CLONE, prog, sub, more)
    if group in ("run", "workflow") and action in ("rerun", "run"):
        return SegmentVerdict(CHECK, prog, sub, more)
    return SegmentVerdict(REVIEW_POST, prog, sub, more)


_CARGO: dict[str, Kind] = _table(
    ("build b package expand", BUILD),
    ("test t nextest miri fuzz", TEST),
    ("check c clippy fix", LINT),
    ("fmt", FORMAT),
    ("run r", RUN),
    ("add install update fetch", PKG_INSTALL),
    ("remove rm uninstall", PKG_REMOVE),
    ("init new", ENV_SETUP),
    ("doc", DOCS_BUILD),
    ("bench", BENCH),
    ("publish", PKG_PUBLISH),
    ("tree metadata search outdated", PKG_READ),
    ("audit deny", PKG_AUDIT),
    ("llvm-cov tarpaulin cov", COVERAGE),
    ("clean", CLEAN),
    ("watch", SERVE),
)
_CARGO_SUBCOMMAND = _by_subcommand(
    _CARGO, CARGO_EXTRA, frozenset({"--manifest-path", "-p", "--package", "-Z"})
)


def _cargo(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
    """`cargo +1.96.0 test` is `cargo test` on another toolchain: the `+toolchain` is no subcommand."""
    if args and args[0].startswith("+"):
        args = args[1:]
    return _CARGO_SUBCOMMAND(prog, args, seg, analyzer)


def _rustup(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
    """`rustup run 1.96.0 cargo test` runs `cargo test` on that toolchain; `rustup show` and the
    lists read which toolchains there are; any other use sets one up."""
    sub, rest = _first_positional(args)
    if sub == "run" and len(rest) >= 2:
        return _delegate(rest[1:], analyzer, seg, f"via {prog} run {rest[0]}")
    if sub in (None, "show", "which", "check", "doc") or (
        sub in ("toolchain", "target", "component") and rest[:1] == ["list"]
    ):
        return SegmentVerdict(ENV_READ, prog, sub, rest)
    return SegmentVerdict(ENV_SETUP, prog, sub, rest)


_GO: dict[str, Kind] = _table(
    ("build install", BUILD),
    ("test", TEST),
    ("vet", LINT),
    ("fmt", FORMAT),
    ("run tool", RUN),
    ("get", PKG_INSTALL),
    ("generate", GENERATE),
    ("doc", FILE_READ),
    ("list", PKG_READ),
    ("env version", ENV_READ),
    ("clean", CLEAN),
    ("work", ENV_SETUP),
)


def _go(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
    sub, rest = _first_positional(args)
    if sub == "mod":
        action, more = _first_positional(rest)
        kind = (
            ENV_SETUP
            if action == "init"
            else PKG_READ
            if action in ("graph", "why", "verify")
            else PKG_INSTALL
        )
        return SegmentVerdict(kind, prog, f"mod {action}" if action else "mod", more)
    if sub == "install" and any("@" in a for a in rest if not a.startswith("-")):
        return SegmentVerdict(PKG_INSTALL, prog, sub, rest)  # `go install x/cmd/tool@latest`: a tool
    return _by_subcommand(_GO, RUN)(prog, args, seg, analyzer)


_SYSTEM_PM: dict[str, Kind] = _table(
    ("install add reinstall upgrade update dist-upgrade full-upgrade tap", PKG_INSTALL),
    ("remove purge uninstall autoremove del erase", PKG_REMOVE),
    ("search list info show policy outdated", PKG_READ),
    ("doctor", PKG_AUDIT),
    ("clean autoclean cleanup", CLEAN),
    ("services", SERVICE_SET),
    ("create env", ENV_SETUP),
    ("activate", ENV_SET),
)


def _pacman(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    flags = "".join(a for a in args if a.startswith("-") and not a.startswith("--"))
    kind = PKG_REMOVE if "R" in flags else PKG_READ if "Q" in flags or "Ss" in flags else PKG_INSTALL
    return SegmentVerdict(kind, prog, None, args)


_DOCKER: dict[str, Kind] = _table(
    ("build buildx tag", CONTAINER_BUILD),
    ("run exec start restart up create compose", CONTAINER_RUN),
    ("pull", PKG_INSTALL),
    ("push", PKG_PUBLISH),
    ("login network volume", ENV_SETUP),
    ("ps logs images image inspect stats top info port events config container", CONTAINER_READ),
    ("version", ENV_READ),
    ("stop kill rm rmi down prune system", CONTAINER_STOP),
    ("cp", FILE_COPY),
)


def _docker(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
    value_flags = frozenset(
        {"-f", "--file", "-p", "--project-name", "--context", "-H", "--host", "--env-file", "--profile"}
    )
    sub, rest = _first_positional(args, value_flags)
    if sub == "compose":
        sub2, rest2 = _first_positional(rest, value_flags)
        kind = _DOCKER.get(sub2 or "", CONTAINER_RUN)
        return SegmentVerdict(kind, prog, f"compose {sub2}" if sub2 else "compose", rest2)
    if sub in ("container", "image", "system", "network", "volume"):
        action, more = _first_positional(rest)
        kind = _DOCKER.get(action or "", _DOCKER[sub]) if action not in ("ls", "list") else CONTAINER_READ
        return SegmentVerdict(kind, prog, f"{sub} {action}" if action else sub, more)
    return _by_subcommand(_DOCKER, CONTAINER_RUN, value_flags)(prog, args, seg, analyzer)


_KUBECTL: dict[str, Kind] = _table(
    ("get describe logs top explain events list status output show state", CONTAINER_READ),
    ("diff template plan validate", INFRA_PLAN),
    ("apply create set scale rollout patch edit label annotate expose install upgrade import", DEPLOY),
    ("config repo init", ENV_SETUP),
    ("delete drain uninstall destroy", CONTAINER_STOP),
    ("exec run port-forward", CONTAINER_RUN),
    ("cp", FILE_COPY),
    ("lint", LINT),
    ("fmt", FORMAT),
)


def _ruff(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    sub, rest = _first_positional(args)
    if sub == "format":
        return SegmentVerdict(LINT if "--check" in rest or "--diff" in rest else FORMAT, prog, sub, rest)
    if sub == "check" or sub is None:
        return SegmentVerdict(LINT, prog, sub, rest if sub else args)
    return SegmentVerdict(LINT, prog, None, args)


def _formatter(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    checking = any(a in ("--check", "-c", "--diff", "-l", "--list-different") for a in args)
    return SegmentVerdict(LINT if checking else FORMAT, prog, None, args)


def _tsc(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    if "--noEmit" in args or "--noemit" in args:
        return SegmentVerdict(LINT, prog, None, args, note="type-checks")
    return SegmentVerdict(BUILD, prog, None, args)


def _coverage(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    sub, rest = _first_positional(args)
    return SegmentVerdict(COVERAGE, prog, sub, rest)


def _pre_commit(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    sub, rest = _first_positional(args)
    if sub in ("install", "autoupdate", "install-hooks", "uninstall", "clean"):
        return SegmentVerdict(ENV_SETUP, prog, sub, rest)
    return SegmentVerdict(LINT, prog, sub, rest)


def _deno(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict | None:
    table = {
        "test": TEST,
        "lint": LINT,
        "check": LINT,
        "fmt": FORMAT,
        "bench": BENCH,
        "compile": BUILD,
        "add": PKG_INSTALL,
        "install": PKG_INSTALL,
        "remove": PKG_REMOVE,
        "doc": DOCS_BUILD,
        "init": ENV_SETUP,
        "info": PKG_READ,
        "repl": REPL,
        "eval": INLINE,
    }
    sub, rest = _first_positional(args)
    if sub == "task":
        task, more = _first_positional(rest)
        return SegmentVerdict(target_kind(task or "") or PKG_SCRIPT, prog, task, more)
    if sub == "run":
        script, more = _first_positional(rest)
        return _script_verdict(prog, script, more, RUN) if script else SegmentVerdict(RUN, prog, sub, rest)
    return _by_subcommand(table, RUN)(prog, args, seg, analyzer)


def _mkdocs(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    sub, rest = _first_positional(args)
    return SegmentVerdict(DOCS_BUILD, prog, sub, rest)


def _version_flag_or(kind: Kind) -> Judge:
    def judge(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
        if args and args[0] in ("--version", "-V", "version"):
            return SegmentVerdict(ENV_READ, prog, None, args)
        return SegmentVerdict(kind, prog, None, args)

    return judge


def _tar(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    first = args[0] if args else ""
    if re.match(r"^-?[a-zA-Z]*t", first) and "c" not in first and "x" not in first:
        return SegmentVerdict(FILE_INFO, prog, None, args)
    return SegmentVerdict(ARCHIVE, prog, None, args)


def _session_runner(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    """tox / nox: the selected environments or sessions (`-e lint`, `-s docs`) say what runs."""
    chosen = [
        args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-e", "-s", "--session", "--sessions", "-k")
    ]
    kinds = [k for k in (target_kind(c) for c in chosen) if k is not None]
    kind = max(kinds, key=lambda k: k.significance) if kinds else TEST
    return SegmentVerdict(kind, prog, chosen[0] if chosen else None, args)


def _which(prog: str, args: list[str], seg: Segment, analyzer: BashAnalyzer) -> SegmentVerdict:
    return SegmentVerdict(ENV_READ, prog, None, args)


_TABLE: dict[str, Judge] = {
    # navigation, shell bookkeeping
    **_each(
        "cd pushd popd true false : sleep wait clear exit return read for while until if done fi esac case } break continue shift trap local declare typeset readonly let test [ [[ ]] ] disown bg fg jobs reset tput stty history function in",
        _simple(NOOP),
    ),
    "echo": _echo,
    "printf": _echo,
    "eval": _eval,
    # environment
    **_each(
        "export source . alias unalias unset set ulimit umask shopt hash direnv setopt", _simple(ENV_SET)
    ),
    **_each(
        "which whereis type command printenv uname whoami id hostname date pwd nproc lsb_release sw_vers locale groups arch tty uptime free vmstat iostat dmesg",
        _which,
    ),
    "env": _which,
    # files
    **_each("ls ll la l dir tree exa eza lsd vdir", _simple(FILE_LIST)),
    # PowerShell's lookups, by name (looked up in lower case: PowerShell ignores case) and alias
    **_each(
        "get-childitem gci get-item gi get-itemproperty resolve-path get-location gl", _simple(FILE_LIST)
    ),
    **_each("get-content gc test-path", _simple(FILE_READ)),
    **_each("select-string sls", _simple(CODE_SEARCH)),
    **_each(
        "cat bat batcat less more view most nl od xxd hexdump strings zcat zless tac", _reader(FILE_READ)
    ),
    **_each(
        "head tail wc sort uniq cut tr column fold rev paste join fmt expand jq yq awk gawk mawk nawk comm iconv base64 shuf tsort xmllint",
        _filter_or_read(FILE_READ),
    ),
    **_each(
        "file stat du df realpath readlink basename dirname md5sum sha1sum sha256sum shasum cksum lsattr getfacl mountpoint findmnt lsblk mount",
        _simple(FILE_INFO),
    ),
    **_each("diff cmp colordiff delta difft icdiff vimdiff meld", _simple(FILE_DIFF)),
    **_each(
        "grep egrep fgrep rg ag ack ack-grep ugrep zgrep pcregrep sg ast-grep semgrep", _simple(CODE_SEARCH)
    ),
    **_each("find fd fdfind locate mlocate fzf plocate", _simple(FILE_FIND)),
    "rm": _file_op(FILE_DELETE, ToolIntent.DELETE),
    "rmdir": _file_op(FILE_DELETE, ToolIntent.DELETE),
    "unlink": _file_op(FILE_DELETE, ToolIntent.DELETE),
    "shred": _file_op(FILE_DELETE, ToolIntent.DELETE),
    "trash": _file_op(FILE_DELETE, ToolIntent.DELETE),
    "trash-put": _file_op(FILE_DELETE, ToolIntent.DELETE),
    "touch": _file_op(FILE_CREATE, ToolIntent.CREATE),
    "mkdir": _simple(
        Kind(_I.CREATE, _D.FILESYSTEM, 0.85, {"building": 0.2, "configuring": 0.1}, 2, "creates folders")
    ),
    "mktemp": _simple(FILE_INFO),
    "cp": _simple(FILE_COPY),
    "rsync": _simple(REMOTE),
    "install": _simple(FILE_COPY),
    "mv": _simple(FILE_MOVE),
    "rename": _simple(FILE_MOVE),
    "ln": _simple(LINK),
    **_each("chmod chown chgrp setfacl chattr", _simple(PERMS)),
    "tar": _tar,
    **_each(
        "zip unzip gzip gunzip bzip2 bunzip2 xz unxz 7z 7za zstd unzstd dos2unix unix2dos split convert magick ffmpeg pandoc",
        _simple(ARCHIVE),
    ),
    "tee": _tee,
    "sed": _sed,
    "gsed": _sed,
    "perl": _perl,
    "patch": _simple(PATCH),
    **_each("vim vi nvim nano emacs code subl ed micro", _simple(EDITOR)),
    **_each("open xdg-open", _simple(FILE_READ)),
    # network
    "curl": _curl,
    "wget": _curl,
    "http": _curl,
    "https": _curl,
    "xh": _curl,
    "aria2c": _curl,
    **_each(
        "ssh scp sftp ftp mosh ssh-keygen ssh-add ssh-copy-id gcloud aws az fly flyctl heroku vercel netlify doctl wrangler",
        _simple(REMOTE),
    ),
    **_each(
        "ping dig nslookup host traceroute tracepath nc ncat netcat netstat ss telnet ifconfig ip nmap mtr whois openssl tcpdump",
        _simple(NET_DIAG),
    ),
    # processes and services
    **_each("ps top htop btop pgrep lsof pstree pidof strace ltrace fuser", _simple(PROC_READ)),
    **_each("kill pkill killall xkill", _simple(PROC_STOP)),
    "systemctl": _systemctl,
    "service": _systemctl,
    "launchctl": _systemctl,
    "journalctl": _simple(SERVICE_READ),
    "crontab": _simple(SERVICE_SET),
    # version control
    "git": _git,
    "gh": _gh,
    "glab": _gh,
    "hub": _git,
    "tig": _simple(VCS_READ),
    "lazygit": _simple(VCS_READ),
    # interpreters and runners
    **_each(
        "python pypy node ruby php lua julia Rscript ts-node tsx esno swift elixir erl ghci runghc java kotlin scala groovy dotnet-script R",
        _interpreter,
    ),
    **_each("bash sh zsh fish dash ksh", _shell),
    "npx": _runner(frozenset({"-p", "--package", "-c", "--call"})),
    "pnpx": _runner(frozenset({"-p", "--package"})),
    "bunx": _runner(frozenset({"-p", "--package"})),
    "uvx": _runner(frozenset({"--from", "--with", "--python", "-p"})),
    "pipx": _with_run(
        {
            "install": PKG_INSTALL,
            "uninstall": PKG_REMOVE,
            "list": PKG_READ,
            "upgrade": PKG_INSTALL,
            "inject": PKG_INSTALL,
            "ensurepath": ENV_SETUP,
        },
        PKG_INSTALL,
    ),
    # package managers
    "pip": _by_subcommand(_PIP, PKG_INSTALL),
    "uv": _uv,
    "poetry": _with_run(_POETRY, PKG_INSTALL),
    "pipenv": _with_run({**_POETRY, "graph": PKG_READ}, PKG_INSTALL),
    "pdm": _with_run(_POETRY, PKG_INSTALL),
    "rye": _with_run(_POETRY, PKG_INSTALL),
    "hatch": _with_run({**_POETRY, "test": TEST, "fmt": FORMAT}, PKG_INSTALL),
    "conda": _with_run(_SYSTEM_PM, PKG_INSTALL),
    "mamba": _with_run(_SYSTEM_PM, PKG_INSTALL),
    "micromamba": _with_run(_SYSTEM_PM, PKG_INSTALL),
    "pyenv": _simple(ENV_SETUP),
    "virtualenv": _simple(ENV_SETUP),
    "npm": _node_pm,
    "yarn": _node_pm,
    "pnpm": _node_pm,
    "bun": _node_pm,
    "nvm": _simple(ENV_SETUP),
    "volta": _simple(ENV_SETUP),
    "corepack": _simple(ENV_SETUP),
    "cargo": _cargo,
    "rustup": _rustup,
    "go": _go,
    **_each(
        "apt apt-get aptitude yum dnf zypper apk brew port snap flatpak choco winget scoop nix-env gem bundle composer mix opam cabal stack pub luarocks cpanm",
        _by_subcommand(_SYSTEM_PM, PKG_INSTALL),
    ),
    "apt-cache": _simple(PKG_READ),
    "dpkg": _simple(PKG_READ),
    "rpm": _simple(PKG_READ),
    "pacman": _pacman,
    "yay": _pacman,
    # tests
    **_each(
        "pytest py.test jest vitest mocha ava tap karma jasmine phpunit pest rspec cucumber behave ctest unittest nosetests nose2 ward cypress playwright bats busted prove testem hypothesis pytest-watch ptw cargo-nextest gotestsum doctest robot",
        _simple(TEST),
    ),
    "coverage": _coverage,
    "tox": _session_runner,
    "nox": _session_runner,
    "nyc": _simple(COVERAGE),
    "c8": _simple(COVERAGE),
    "codecov": _simple(COVERAGE),
    # linters and formatters
    "ruff": _ruff,
    **_each(
        "mypy dmypy pyright basedpyright pyre pylint flake8 pycodestyle pydocstyle pyflakes bandit vulture eslint tslint stylelint shellcheck hadolint yamllint markdownlint markdownlint-cli2 rubocop golangci-lint staticcheck revive vale codespell cspell actionlint oxlint clippy-driver cppcheck clang-tidy ktlint detekt swiftlint sqlfluff taplo biome typos deptry pip-audit safety interrogate darglint xo standard",
        _simple(LINT),
    ),
    **_each(
        "black isort autopep8 yapf prettier rustfmt gofmt goimports clang-format shfmt dprint autoflake pyupgrade docformatter stylua ocamlformat mdformat",
        _formatter,
    ),
    "pre-commit": _pre_commit,
    "prek": _pre_commit,
    "lefthook": _pre_commit,
    "tsc": _tsc,
    "vue-tsc": _tsc,
    # build tools
    **_each(
        "make gmake just task mage rake invoke inv doit earthly",
        _MAKE_LIKE,
    ),
    "mise": _mise,
    **_each(
        "cmake ninja meson bazel bazelisk buck scons gcc g++ clang clang++ cc c++ rustc javac kotlinc esbuild webpack rollup parcel swc tsup turbo nx lerna babel sass postcss tailwindcss protoc buf wasm-pack maturin pyinstaller nuitka cython setup.py ant xcodebuild zig ld ar strip bundle-exec electron-builder",
        _simple(BUILD),
    ),
    "vite": _by_subcommand({"build": BUILD, "preview": SERVE, "dev": SERVE, "optimize": BUILD}, SERVE),
    "next": _by_subcommand({"build": BUILD, "dev": SERVE, "start": SERVE, "lint": LINT}, SERVE),
    "nuxt": _by_subcommand({"build": BUILD, "dev": SERVE, "generate": BUILD}, SERVE),
    "astro": _by_subcommand({"build": BUILD, "dev": SERVE, "check": LINT}, SERVE),
    "ng": _by_subcommand(
        {
            "build": BUILD,
            "serve": SERVE,
            "test": TEST,
            "lint": LINT,
            "e2e": TEST,
            "generate": GENERATE,
            "g": GENERATE,
            "new": ENV_SETUP,
            "add": PKG_INSTALL,
        },
        BUILD,
    ),
    "gradle": _make_like(frozenset({"-p", "--project-dir", "-b"})),
    "gradlew": _make_like(frozenset({"-p", "--project-dir", "-b"})),
    "mvn": _make_like(frozenset({"-f", "-pl", "-P", "-D"})),
    "mvnw": _make_like(frozenset({"-f", "-pl", "-P", "-D"})),
    "sbt": _make_like(frozenset()),
    "dotnet": _by_subcommand(
        {
            "build": BUILD,
            "test": TEST,
            "run": RUN,
            "add": PKG_INSTALL,
            "restore": PKG_INSTALL,
            "new": ENV_SETUP,
            "publish": PKG_PUBLISH,
            "format": FORMAT,
            "watch": SERVE,
            "clean": CLEAN,
            "pack": BUILD,
            "tool": PKG_INSTALL,
        },
        RUN,
    ),
    "flutter": _by_subcommand(
        {
            "build": BUILD,
            "test": TEST,
            "run": RUN,
            "pub": PKG_INSTALL,
            "analyze": LINT,
            "create": ENV_SETUP,
            "doctor": ENV_READ,
            "clean": CLEAN,
        },
        RUN,
    ),
    "deno": _deno,
    # docs
    **_each(
        "mkdocs sphinx-build sphinx-autobuild sphinx-apidoc pdoc pdoc3 typedoc jsdoc doxygen mdbook hugo jekyll docusaurus zensical",
        _mkdocs,
    ),
    # databases
    **_each(
        "psql mysql mariadb sqlite3 sqlite duckdb redis-cli mongo mongosh cypher-shell clickhouse-client cqlsh pg_dump pg_restore mysqldump createdb dropdb pg_ctl influx",
        _simple(DB_QUERY),
    ),
    **_each(
        "alembic flyway liquibase prisma sqlx diesel knex sequelize dbmate atlas migrate goose",
        _by_subcommand({}, DB_MIGRATE),
    ),
    # containers and infrastructure
    "docker": _docker,
    "podman": _docker,
    "nerdctl": _docker,
    "docker-compose": lambda p, a, s, an: _docker(p, ["compose", *a], s, an),
    "podman-compose": lambda p, a, s, an: _docker(p, ["compose", *a], s, an),
    **_each(
        "kubectl k oc helm terraform tofu pulumi kustomize minikube kind k3d ansible-playbook ansible skaffold tilt argocd",
        _by_subcommand(
            _KUBECTL, DEPLOY, frozenset({"-n", "--namespace", "--context", "-f", "-l", "-o", "-c"})
        ),
    ),
    # editors of the environment, misc
    "ollama": _by_subcommand(
        {
            "run": RUN,
            "pull": PKG_INSTALL,
            "list": PKG_READ,
            "ps": PROC_READ,
            "serve": SERVE,
            "rm": PKG_REMOVE,
            "show": PKG_READ,
        },
        RUN,
    ),
    "claude": _simple(Kind(_I.EXECUTE, _D.PROCESS, 0.6, {"building": 0.2}, 3, "runs Claude Code")),
    "tmux": _simple(ENV_SET),
    "screen": _simple(ENV_SET),
    "seq": _simple(FILTER),
    "yes": _simple(FILTER),
    "bc": _simple(FILTER),
    "expr": _simple(FILTER),
    "cal": _simple(ENV_READ),
    "man": _simple(Kind(_I.READ, _D.DOCUMENTATION, 0.85, {"exploring": 0.5}, 2, "reads a manual")),
    "info": _simple(Kind(_I.READ, _D.DOCUMENTATION, 0.8, {"exploring": 0.5}, 2, "reads a manual")),
    "tldr": _simple(Kind(_I.READ, _D.DOCUMENTATION, 0.85, {"exploring": 0.5}, 2, "reads a manual")),
    "pydoc": _simple(Kind(_I.READ, _D.DOCUMENTATION, 0.85, {"exploring": 0.5}, 2, "reads API docs")),
    "notify-send": _simple(Kind(_I.COMMUNICATE, _D.PROCESS, 0.8, {}, 1, "sends a notification")),
    "say": _simple(Kind(_I.COMMUNICATE, _D.PROCESS, 0.8, {}, 1, "speaks")),
    "pbcopy": _simple(FILTER),
    "pbpaste": _simple(FILTER),
    "xclip": _simple(FILTER),
    "wl-copy": _simple(FILTER),
}

# Modules that `python -m` runs under their own name but that are not commands of their own.
_PY_MODULES: dict[str, Judge] = {
    "venv": _simple(ENV_SETUP),
    "virtualenv": _simple(ENV_SETUP),
    "ensurepip": _simple(ENV_SETUP),
    "build": _simple(BUILD),
    "twine": _simple(PKG_PUBLISH),
    "http.server": _simple(SERVE),
    "json.tool": _simple(FILTER),
    "pydoc": _simple(Kind(_I.READ, _D.DOCUMENTATION, 0.85, {"exploring": 0.5}, 2, "reads API docs")),
    "compileall": _simple(BUILD),
    "py_compile": _simple(LINT),
    "pdb": _simple(Kind(_I.EXECUTE, _D.CODE, 0.8, {"fixing": 0.6, "exploring": 0.2}, 3, "debugs")),
    "cProfile": _simple(BENCH),
    "timeit": _simple(BENCH),
    "pre_commit": _pre_commit,
    "pip_audit": _simple(PKG_AUDIT),
    "sphinx": _mkdocs,
    "mkdocs": _mkdocs,
    "uvicorn": _simple(SERVE),
    "flask": _by_subcommand({"run": SERVE, "db": DB_MIGRATE, "routes": FILE_READ, "shell": REPL}, SERVE),
    "django": _by_subcommand(
        {
            "test": TEST,
            "migrate": DB_MIGRATE,
            "makemigrations": DB_MIGRATE,
            "runserver": SERVE,
            "startproject": ENV_SETUP,
            "startapp": GENERATE,
        },
        RUN,
    ),
    "unittest": _simple(TEST),
    "doctest": _simple(TEST),
    "zipfile": _simple(ARCHIVE),
    "tarfile": _simple(ARCHIVE),
    "site": _simple(ENV_READ),
    "sysconfig": _simple(ENV_READ),
    "platform": _simple(ENV_READ),
}
_SERVERS: dict[str, Judge] = _each(
    "uvicorn gunicorn hypercorn daphne flask streamlit gradio jupyter jupyter-lab ipython nodemon pm2 serve http-server live-server caddy nginx celery rq dramatiq",
    _simple(SERVE),
)
