"""Shell commands understood without an LLM: what each segment of a command line does.

One module a concept, one way (vocabulary ← shell ← judges ← analyzer): the kinds of command,
reading a line as a shell does, one judge per program family, and the analyzer that puts them together."""

from .analyzer import BashAnalyzer
from .judges import _positionals as positionals
from .shell import split_segments, strip_heredocs, tokenize
from .vocabulary import BashAnalysis, SegmentVerdict

__all__ = [
    "BashAnalysis",
    "BashAnalyzer",
    "SegmentVerdict",
    "positionals",
    "split_segments",
    "strip_heredocs",
    "tokenize",
]
