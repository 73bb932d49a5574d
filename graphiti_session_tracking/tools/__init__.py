"""Tool classification: what each tool call of a session was for, and what it says about the session.

classifier = UnifiedToolClassifier(llm_client, cache_path)   # llm_client may be None
classifications = await classifier.classify_session(session.tool_calls)
signals = classifier.aggregate_signals(classifications)      # input to the activity vector
"""

from .bash import BashAnalysis, BashAnalyzer
from .cache import CACHE_VERSION, ClassificationCache, default_cache_path
from .classifier import ClassifierStats, ToolClassifier, UnifiedToolClassifier, aggregate_signals
from .files import FileKind, file_kind
from .heuristics import (
    NATIVE_TOOLS,
    classify_by_name,
    classify_heuristic,
    classify_native,
    fallback_classification,
    split_mcp_name,
)
from .llm import LLMClassificationBatch, LLMVerdictItem
from .model import (
    ACTIVITY_DIMENSIONS,
    BashCommandClassification,
    Classification,
    ClassificationSource,
    ToolClassification,
    ToolDomain,
    ToolIntent,
    Verdict,
)
from .signals import split_words

__all__ = [
    "ACTIVITY_DIMENSIONS",
    "CACHE_VERSION",
    "NATIVE_TOOLS",
    "BashAnalysis",
    "BashAnalyzer",
    "BashCommandClassification",
    "Classification",
    "ClassificationCache",
    "ClassificationSource",
    "ClassifierStats",
    "FileKind",
    "LLMClassificationBatch",
    "LLMVerdictItem",
    "ToolClassification",
    "ToolClassifier",
    "ToolDomain",
    "ToolIntent",
    "UnifiedToolClassifier",
    "Verdict",
    "aggregate_signals",
    "classify_by_name",
    "classify_heuristic",
    "classify_native",
    "default_cache_path",
    "fallback_classification",
    "file_kind",
    "split_mcp_name",
    "split_words",
]
