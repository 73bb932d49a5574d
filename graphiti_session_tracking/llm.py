"""Graphiti LLM and embedder clients built from the config (OpenAI or any OpenAI-compatible URL).

Only summaries and unknown-tool classification use the LLM; the graph write path never does.
"""

from __future__ import annotations

import os

from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import LLMConfig as GraphitiLLMConfig
from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

from .config import ConfigError, EmbedderConfig, LLMConfig


def _api_key(env_name: str, base_url: str | None, what: str) -> str:
    key = os.environ.get(env_name)
    if key:
        return key
    if base_url:
        return "not-needed"  # local OpenAI-compatible servers often take any key
    raise ConfigError(f"{what} is enabled but ${env_name} is not set (or set a base_url)")


def make_llm_client(config: LLMConfig) -> LLMClient | None:
    """The configured LLM client, or None when the LLM is off (everything then works offline)."""
    if not config.enabled:
        return None
    return OpenAIGenericClient(
        GraphitiLLMConfig(
            api_key=_api_key(config.api_key_env, config.base_url, "the LLM"),
            base_url=config.base_url,
            model=config.model,
            small_model=config.model,
        )
    )


def make_embedder(config: EmbedderConfig) -> EmbedderClient | None:
    """The configured embedder, or None (search then uses full text only)."""
    if not config.enabled:
        return None
    return OpenAIEmbedder(
        OpenAIEmbedderConfig(
            api_key=_api_key(config.api_key_env, config.base_url, "the embedder"),
            base_url=config.base_url,
            embedding_model=config.model,
            embedding_dim=config.dimensions,
        )
    )
