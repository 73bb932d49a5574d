"""The local embedder: meaning without a key, a service or a download.

WordLlama's `l2_supercat` token embeddings (256 dimensions, 16 MB) ship inside the `wordllama`
wheel; a text's vector is the mean of its tokens' vectors, unit length, so a dot product is the
cosine. No torch, no model server: numpy and a tokenizer, about 0.1 s to load and tens of
thousands of short texts a second on 2 cores (docs/queries.md compares the candidates).

The weights and tokenizer are read from the installed package directly, without importing
`wordllama`: its loader looks for the tokenizer in a folder its wheel does not have and then asks
the Hugging Face hub for it (a network call we must never make), and importing it configures the
root logger (`logging.basicConfig`), which is the application's to do.
"""

from __future__ import annotations

import importlib.util
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

MODEL = "wordllama-l2_supercat-256"
DIMENSIONS = 256
PROPERTY = "gs_embedding"  # where our vectors live (never name_embedding / fact_embedding)
_PACKAGE = "wordllama"
_WEIGHTS = "weights/l2_supercat_256.safetensors"
_TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
_MAX_TOKENS = 2_048  # a long summary's vector is the mean of its first tokens; enough to place it
_WIDEN_AT = 4_096  # tokens in one batch from which the whole matrix is widened to float32 first
_lock = threading.Lock()
_loaded: LocalEmbedder | None = None


class LocalEmbedderMissing(RuntimeError):
    """The `wordllama` package (which carries the weights) is not installed, or is incomplete."""


def package_folder() -> Path:
    """Where the installed `wordllama` package is, found without running its `__init__`."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise LocalEmbedderMissing("the local embedder needs the wordllama package: pip install wordllama")
    return Path(next(iter(spec.submodule_search_locations)))


class LocalEmbedder:
    """Texts to unit vectors: the mean of the text's token embeddings."""

    model = MODEL

    def __init__(self, weights: NDArray[np.floating[Any]], tokenizer: object) -> None:
        from tokenizers import Tokenizer

        if not isinstance(tokenizer, Tokenizer):
            raise TypeError("tokenizer must be a tokenizers.Tokenizer")
        # As shipped (float16): a question's few tokens are read from it and widened row by row.
        # The whole matrix is widened to float32 once a batch is big enough to pay for it (20-100
        # ms, a tenth of a `search`), after which only that copy is kept.
        self._shipped: NDArray[np.floating[Any]] | None = np.ascontiguousarray(weights)
        self._wide: NDArray[np.float32] | None = None
        self._widening = threading.Lock()
        self.tokenizer = tokenizer
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(_MAX_TOKENS)
        self.dimensions = int(weights.shape[1])
        self._rows = int(weights.shape[0])

    @property
    def weights(self) -> NDArray[np.float32]:
        """The token vectors as float32 (widened once, on first use; threads may embed at once)."""
        with self._widening:
            if self._wide is None:
                self._wide = np.ascontiguousarray(self._shipped, dtype=np.float32)
                self._shipped = None
            return self._wide

    def _sum(self, ids: NDArray[np.int64], widen: bool) -> NDArray[np.float32]:
        """The float32 sum of the rows of `ids`: each row widened before summing, as in the
        widened matrix, so either way gives the same vector."""
        shipped = self._shipped  # held here: another thread may widen the matrix meanwhile
        if shipped is not None and not widen:
            rows: NDArray[np.float32] = shipped[ids].astype(np.float32)
            return rows.sum(axis=0)  # type: ignore[no-any-return]
        return self.weights[ids].sum(axis=0)  # type: ignore[no-any-return]

    @classmethod
    def load(cls) -> LocalEmbedder:
        """The shipped model, loaded once per process (later calls reuse it)."""
        global _loaded
        with _lock:
            if _loaded is None:
                from safetensors.numpy import load_file
                from tokenizers import Tokenizer

                folder = package_folder()
                weights, tokenizer = folder / _WEIGHTS, folder / _TOKENIZER
                for path in (weights, tokenizer):
                    if not path.is_file():
                        raise LocalEmbedderMissing(f"the wordllama package lacks {path}: reinstall it")
                tensors = load_file(str(weights))
                _loaded = cls(tensors["embedding.weight"], Tokenizer.from_file(str(tokenizer)))
            return _loaded

    def embed(self, texts: Sequence[str]) -> list[list[float] | None]:
        """One unit vector per text; None for a text with no token (nothing to place)."""
        return [None if row is None else row.tolist() for row in self.unit_vectors(texts)]

    def unit_vectors(self, texts: Sequence[str]) -> list[NDArray[np.float32] | None]:
        """`embed`'s vectors as arrays (the writer packs them without a list in between)."""
        if not texts:
            return []
        encodings = self.tokenizer.encode_batch(list(texts), add_special_tokens=False)
        out: list[NDArray[np.float32] | None] = [None] * len(texts)
        present = [i for i, e in enumerate(encodings) if e.ids]
        if not present:
            return out
        top = self._rows - 1
        widen = sum(len(encodings[i].ids) for i in present) > _WIDEN_AT
        # One small gather per text: gathering every token's row at once (190 MB for 5,000
        # summaries' texts) took 25 times as long, most of what embedding added to an ingest.
        sums = np.stack(
            [self._sum(np.clip(np.asarray(encodings[i].ids, dtype=np.int64), 0, top), widen) for i in present]
        )
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        for index, row in zip(present, sums / norms, strict=True):
            out[index] = row
        return out

    def embed_one(self, text: str) -> list[float] | None:
        return self.embed([text])[0]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity of two vectors (ours are unit length; others are normalized here)."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
