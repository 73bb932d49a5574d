"""The local embedder with its real shipped weights: offline, unit vectors, meaning over words."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np

from graphiti_session_tracking.config import AppConfig
from graphiti_session_tracking.graph.local_embedder import DIMENSIONS, LocalEmbedder, cosine
from graphiti_session_tracking.pipeline.compose import build_pipeline

_OFFLINE = """
import json, logging, socket
def refuse(*args, **kwargs):
    raise OSError("no network in this test")
socket.socket.connect = refuse
socket.create_connection = refuse
from graphiti_session_tracking.graph.local_embedder import LocalEmbedder
vector = LocalEmbedder.load().embed_one("the release build broke")
print(json.dumps({"dims": len(vector), "root_handlers": len(logging.getLogger().handlers)}))
"""


def test_loads_from_the_installed_package_with_no_network() -> None:
    """Weights and tokenizer come from site-packages: no socket is opened, the hub is never asked,
    and loading leaves the application's logging alone."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HOME": "/nonexistent"}
    out = subprocess.run(
        [sys.executable, "-c", _OFFLINE], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout) == {"dims": DIMENSIONS, "root_handlers": 0}


def test_unit_vectors_and_meaning() -> None:
    embedder = LocalEmbedder.load()
    assert LocalEmbedder.load() is embedder  # loaded once per process
    a, b, c, empty = embedder.embed(
        [
            "why could the app not reach postgres",
            "psycopg2.OperationalError: could not connect to server: Connection refused",
            "Add dark mode to the settings page",
            "",
        ]
    )
    assert a is not None and b is not None and c is not None and empty is None
    assert len(a) == DIMENSIONS and abs(cosine(a, a) - 1.0) < 1e-5
    assert abs(sum(x * x for x in a) - 1.0) < 1e-4  # unit length: a dot product is the cosine
    assert cosine(a, b) > cosine(a, c) + 0.05  # the question is nearer the error it asks about
    assert embedder.embed([]) == []


def test_the_config_switch() -> None:
    """On by default (no key, no download); `embedder.local.enabled: false` turns it off."""
    assert AppConfig().embedder_settings.local is True
    assert isinstance(build_pipeline(AppConfig()).local_embedder, LocalEmbedder)
    off = AppConfig.validate({"embedder": {"local": {"enabled": False}}})
    assert off.embedder_settings.local is False
    assert build_pipeline(off).local_embedder is None


def _fresh() -> LocalEmbedder:
    """A new embedder of the shipped weights, not the process's shared one (`load`)."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    from graphiti_session_tracking.graph.local_embedder import _TOKENIZER, _WEIGHTS, package_folder

    folder = package_folder()
    return LocalEmbedder(
        load_file(str(folder / _WEIGHTS))["embedding.weight"], Tokenizer.from_file(str(folder / _TOKENIZER))
    )


def test_a_few_tokens_read_from_the_shipped_matrix_give_the_widened_vectors() -> None:
    """A question's vector is summed from its rows widened one by one, without widening the
    whole matrix (a tenth of a `search`); a big batch widens it first. Both give the same vectors."""
    shipped = LocalEmbedder.load()
    assert shipped.weights.dtype == np.float32
    fresh = _fresh()
    texts = ["why was my push refused", "TypeError: createLogger is not a function", "a/b/c.py ütf 漢字"]
    few = fresh.unit_vectors(texts)
    assert fresh._wide is None and fresh._shipped is not None and fresh._shipped.dtype == np.float16
    widened = shipped.unit_vectors(texts)
    assert all(np.array_equal(a, b) for a, b in zip(few, widened, strict=True))  # type: ignore[arg-type]
    many = fresh.unit_vectors([*texts, "word " * 2_000, "other " * 2_000, "third " * 2_000])
    assert fresh._wide is not None and fresh._shipped is None  # widened once, the shipped copy let go
    assert all(np.array_equal(a, b) for a, b in zip(many[:3], widened, strict=True))  # type: ignore[arg-type]


def test_threads_embedding_while_the_matrix_is_widened_get_the_same_vectors() -> None:
    """The MCP server embeds questions from several threads: one batch widening the matrix meanwhile
    changes no thread's vector and fails none."""
    from concurrent.futures import ThreadPoolExecutor

    fresh = _fresh()
    question = "have we seen this timeout before"
    expected = LocalEmbedder.load().unit_vectors([question])[0]
    with ThreadPoolExecutor(8) as pool:
        futures = [pool.submit(fresh.unit_vectors, [question]) for _ in range(200)]
        big = pool.submit(fresh.unit_vectors, ["word " * 2_000, "other " * 2_000, "third " * 2_000])
        futures += [pool.submit(fresh.unit_vectors, [question]) for _ in range(200)]
        results = [future.result()[0] for future in futures]
        assert len(big.result()) == 3
    assert fresh._shipped is None
    assert all(np.array_equal(r, expected) for r in results)  # type: ignore[arg-type]
