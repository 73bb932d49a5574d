"""Graphiti LLM and embedder clients built from the config (OpenAI or any OpenAI-compatible URL).

Only summaries and unknown-tool classification use the LLM; the graph write path never does.
"""

from __future__ import annotations

import os
from typing import Any

from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
from graphiti_core.llm_client.client import LLMClient
from graphiti_core.llm_client.config import LLMConfig as GraphitiLLMConfig
from graphiti_core.llm_client.config import ModelSize
from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient
from graphiti_core.prompts.models import Message
from openai import AsyncOpenAI
from pydantic import BaseModel

from .config import ConfigError, EmbedderConfig, LLMConfig
from .redact import Redactor


def _api_key(env_name: str, base_url: str | None, what: str) -> str:
    key = os.environ.get(env_name)
    if key:
        return key
    if base_url:
        return "not-needed"  # local OpenAI-compatible servers often take any key
    raise ConfigError(f"{what} is enabled but ${env_name} is not set (or set a base_url)")


class RedactingLLMClient(LLMClient):
    """Wraps an LLM client so that every prompt passes the redactor before it leaves the machine:
    one place guards the tool classifier, the summarizer and whatever uses the client later."""

    def __init__(self, inner: LLMClient, redactor: Redactor) -> None:
        super().__init__(inner.config)
        self.inner = inner
        self.redactor = redactor
        self.token_tracker = inner.token_tracker

    def _clean(self, messages: list[Message]) -> list[Message]:
        return [Message(role=m.role, content=self.redactor.redact(m.content)) for m in messages]

    async def generate_response(  # type: ignore[override]
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int | None = None,
        model_size: ModelSize = ModelSize.medium,
        group_id: str | None = None,
        prompt_name: str | None = None,
        *,
        attribute_extraction: bool = False,
        model: str | None = None,
    ) -> dict[str, Any]:
        return await self.inner.generate_response(
            self._clean(messages),
            response_model,
            max_tokens,
            model_size,
            group_id,
            prompt_name,
            attribute_extraction=attribute_extraction,
            model=model,
        )

    async def _generate_response(  # type: ignore[override]
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int = 8192,
        model_size: ModelSize = ModelSize.medium,
    ) -> dict[str, Any]:
        return await self.inner._generate_response(
            self._clean(messages), response_model, max_tokens, model_size
        )


class _SdkRetriedClient(OpenAIGenericClient):
    """Graphiti's generic OpenAI client, retried only by the openai SDK.

    Graphiti wraps each request in its own retry (4 attempts, waits of 5 to 120 s) on top of the
    SDK's: attempts then multiply and one rate-limited session could stall an ingest for minutes.
    Here the SDK alone retries (`llm.max_retries`, exponential backoff, Retry-After honoured), so
    the number of requests and the time they take stay bounded; then the caller's offline
    fallback takes over.
    """

    async def _generate_response_with_retry(  # type: ignore[override]
        self,
        messages: list[Message],
        response_model: type[BaseModel] | None = None,
        max_tokens: int = 8192,
        model_size: ModelSize = ModelSize.medium,
        *,
        model: str | None = None,
    ) -> dict[str, Any]:
        overrides: dict[str, Any] = {"model": model} if model is not None else {}
        return await self._generate_response(messages, response_model, max_tokens, model_size, **overrides)


def make_llm_client(config: LLMConfig, redactor: Redactor | None = None) -> LLMClient | None:
    """The configured LLM client (prompts always redacted), or None when the LLM is off.

    `config.timeout_s` bounds each HTTP request; `config.max_retries` bounds the retries. Small
    requests (tool classification, condensing one message) go to `small_model`."""
    if not config.enabled:
        return None
    api_key = _api_key(config.api_key_env, config.base_url, "the LLM")
    client = _SdkRetriedClient(
        GraphitiLLMConfig(
            api_key=api_key,
            base_url=config.base_url,
            model=config.model,
            small_model=config.small_model or config.model,
            temperature=config.temperature,
        ),
        client=AsyncOpenAI(
            api_key=api_key,
            base_url=config.base_url,
            max_retries=config.max_retries,
            timeout=config.timeout_s,
        ),
    )
    return RedactingLLMClient(client, redactor or Redactor())


def make_embedder(config: EmbedderConfig) -> EmbedderClient | None:
    """The configured embedder, or None (search then uses full text only)."""
    if not config.enabled:
        return None
    return _BatchedEmbedder(
        config.batch_size,
        OpenAIEmbedderConfig(
            api_key=_api_key(config.api_key_env, config.base_url, "the embedder"),
            base_url=config.base_url,
            embedding_model=config.model,
            embedding_dim=config.dimensions,
        ),
    )


class _BatchedEmbedder(OpenAIEmbedder):
    """OpenAI's embedder, `batch_size` texts per request (the config's `embedder.batch_size`)."""

    def __init__(self, batch_size: int, config: OpenAIEmbedderConfig) -> None:
        super().__init__(config)
        self.batch_size = batch_size

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        out: list[list[float]] = []
        for start in range(0, len(input_data_list), self.batch_size):
            out.extend(await super().create_batch(input_data_list[start : start + self.batch_size]))
        return out
