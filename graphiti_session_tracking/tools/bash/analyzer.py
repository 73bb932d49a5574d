"""The analyzer: a whole command line judged segment by segment, the deciding verdict, and when an
unknown program leaves it to the LLM."""

from __future__ import annotations

import re
from dataclasses import replace

from ..model import BashCommandClassification
from ..signals import merge_signals
from .judges import _PY_MODULES, _SERVERS, _TABLE, _file_write, _first_positional, _script_verdict
from .shell import program_name, split_segments, tokenize, unwrap
from .vocabulary import (
    _D,
    _I,
    _MAX_TARGET_CHARS,
    _MAX_TARGETS,
    INLINE,
    INLINE_EDIT,
    NOOP,
    REPL,
    SCRIPT,
    UNKNOWN_CONFIDENCE,
    BashAnalysis,
    Segment,
    SegmentVerdict,
)

# --- the analyzer -----------------------------------------------------------------------------

# Inline code (`python3 - <<'PY' … path.write_bytes(…)`, `node -e "fs.writeFileSync(…)"`) that
# writes files: an edit made through an interpreter, not a look around.
_WRITES_FILES = re.compile(
    r"\.write_(?:text|bytes)\(|\bopen\([^)\n]*,\s*[rf]?['\"][wax]b?\+?['\"]|\bFile\.write\b|"
    r"\.(?:writeFile|appendFile|rename|unlink)(?:Sync)?\(|\bshutil\.(?:copy\w*|move|rmtree)\(|\bos\.remove\("
)


def _inline_edit(verdict: SegmentVerdict | None, command: str) -> SegmentVerdict | None:
    """The verdict, as an edit when it runs inline code that writes files."""
    if verdict is not None and verdict.kind in (INLINE, REPL) and _WRITES_FILES.search(command):
        return replace(verdict, kind=INLINE_EDIT)
    return verdict


class BashAnalyzer:
    """Parses and classifies shell command lines; never calls an LLM (the classifier does that).

    `analyze` is pure: the same command always gives the same answer, so the classifier may
    cache by command text.
    """

    def __init__(self, unknown_confidence: float = UNKNOWN_CONFIDENCE) -> None:
        self.unknown_confidence = min(unknown_confidence, 0.4)

    def judge_segment(self, segment: Segment) -> SegmentVerdict | None:
        """The verdict on one simple command; None when its executable is unknown."""
        words, _ = unwrap(segment.words)
        if not words:
            if segment.writes:
                return _file_write(":", [], segment.writes)
            return SegmentVerdict(NOOP, "", None, [])
        head, args = words[0], words[1:]
        prog = program_name(head)
        judge = _TABLE.get(prog) or _SERVERS.get(prog) or _PY_MODULES.get(prog)
        if judge is None and "-" in prog and prog[:1].isupper():  # a PowerShell cmdlet: `Get-ChildItem`
            judge = _TABLE.get(prog.lower())
        if judge is None and prog.endswith((".py", ".sh", ".js", ".ts", ".rb", ".pl", ".bash")):
            return _script_verdict(prog, head, args)
        if judge is None and "/" in head:
            return _script_verdict(prog, head, args)
        if judge is None and head.startswith("$"):
            return SegmentVerdict(
                SCRIPT, head, None, args, note="runs a program named by a variable", confidence=0.5
            )
        if judge is None:
            return None
        return judge(prog, args, segment, self)

    def judge_line(self, command: str) -> SegmentVerdict | None:
        """The deciding verdict of a whole (inner) command line; None if only unknowns decide it."""
        tokens, _ = tokenize(command)
        verdicts = [self.judge_segment(s) for s in split_segments(tokens)]
        known = [v for v in verdicts if v is not None]
        if not known or (len(known) < len(verdicts) and max(v.kind.significance for v in known) < 3):
            return None
        return _inline_edit(max(known, key=lambda v: v.kind.significance), command)

    def parts(self, command: str) -> list[tuple[str, SegmentVerdict | None]]:
        """Each simple command of the line that does not just filter another's output (`| head`),
        as words joined by spaces, with its verdict."""
        tokens, _ = tokenize(command)
        return [(" ".join(s.words), self.judge_segment(s)) for s in split_segments(tokens) if not s.piped]

    def only_reads_files(self, command: str) -> bool:
        """Every part of the line reads files or searches code (`cd a && sed -n 1,80p b.ts | head`):
        the shell doing what a Read or Grep tool does. Reading repository, container or package
        state is not counted: that output can be the work failing (`docker logs`)."""
        tokens, _ = tokenize(command)
        looked = False
        for segment in split_segments(tokens):
            verdict = self.judge_segment(segment)
            if verdict is None:
                return False
            kind = verdict.kind
            if kind.significance == 0 or kind.intent == _I.TRANSFORM:  # `cd`, `| head`, `| sort`
                continue
            if kind.intent not in (_I.READ, _I.SEARCH) or kind.domain not in (_D.FILESYSTEM, _D.CODE):
                return False
            looked = True
        return looked

    def analyze(self, command: str) -> BashAnalysis:
        """Classify `command`; `needs_llm` when an unknown executable decides what it does."""
        raw = command
        tokens, clean = tokenize(command)
        segments = split_segments(tokens)
        if not segments:
            return BashAnalysis(
                BashCommandClassification(
                    raw_command=raw,
                    base_command="",
                    intent=_I.EXECUTE,
                    domain=_D.PROCESS,
                    confidence=0.1,
                    reasoning="empty command",
                    source="heuristic",
                ),
                needs_llm=False,
            )
        judged = [(s, self.judge_segment(s)) for s in segments]
        known = [v for _, v in judged if v is not None]
        unknown = [s for s, v in judged if v is None]
        deciding = max(known, key=lambda v: v.kind.significance) if known else None  # the first one
        best = _inline_edit(deciding, command)
        penalty = 0.0 if clean else 0.1
        if unknown and (best is None or best.kind.significance < 3):
            return self._unknown(raw, unknown[0], known, clean)
        assert best is not None
        others = [v for v in known if v is not deciding and v.kind.significance >= 3]
        signals = merge_signals(
            best.final_signals, *(v.final_signals for v in others), weights=[1.0] + [0.5] * len(others)
        )
        if unknown:
            penalty += 0.1
        confidence = round(max(0.05, best.final_confidence - penalty), 3)
        flags, targets = _flags_and_targets(best.args)
        reasoning = best.kind.what
        if best.note:
            reasoning += f" ({best.note})"
        if len(segments) > 1:
            reasoning += f"; decided by `{best.base}{' ' + best.subcommand if best.subcommand else ''}` of {len(segments)} commands"
        if not clean:
            reasoning += "; unbalanced quotes, parsed loosely"
        return BashAnalysis(
            BashCommandClassification(
                raw_command=raw,
                base_command=best.base,
                subcommand=best.subcommand,
                flags=flags,
                targets=targets,
                intent=best.kind.intent,
                domain=best.domain or best.kind.domain,
                confidence=confidence,
                reasoning=reasoning,
                activity_signals=signals,
                source="heuristic",
            ),
            needs_llm=False,
        )

    def _unknown(self, raw: str, segment: Segment, known: list[SegmentVerdict], clean: bool) -> BashAnalysis:
        words, _ = unwrap(segment.words)
        exe = program_name(words[0]) if words else ""
        sub, _ = _first_positional(words[1:])
        flags, targets = _flags_and_targets(words[1:])
        signals = merge_signals(*(v.final_signals for v in known), weights=[0.5] * len(known))
        return BashAnalysis(
            BashCommandClassification(
                raw_command=raw,
                base_command=exe,
                subcommand=sub,
                flags=flags,
                targets=targets,
                intent=_I.EXECUTE,
                domain=_D.PROCESS,
                confidence=self.unknown_confidence,
                reasoning=f"unknown program {exe!r}; only known to run something",
                activity_signals=signals,
                source="heuristic",
            ),
            needs_llm=True,
            unknown_executable=exe,
        )

    def classify(self, command: str) -> BashCommandClassification:
        """The heuristic classification alone (low confidence when an LLM was needed)."""
        return self.analyze(command).classification


def _flags_and_targets(args: list[str]) -> tuple[list[str], list[str]]:
    flags = [a for a in args if a.startswith("-") and a != "-"]
    targets = [
        a if len(a) <= _MAX_TARGET_CHARS else a[:_MAX_TARGET_CHARS] + "…"
        for a in args
        if not (a.startswith("-") and a != "-")
    ]
    return flags[:_MAX_TARGETS], targets[:_MAX_TARGETS]
