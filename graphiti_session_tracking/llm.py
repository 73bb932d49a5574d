"""Graphiti LLM and embedder clients built from the config (OpenAI or any OpenAI-compatible URL).

Only summaries and unknown-tool classification use the LLM; the graph write path never does.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
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


class LLMBudgetExceeded(RuntimeError):
    """A request the budget does not allow: refused before anything is sent."""


@dataclass
class LLMMeter:
    """Every LLM request of a run, counted where it leaves (calls, input and output tokens as
    characters / 4), and the budget it may not exceed: per session (`start_session` opens one) and
    per run. A request past either is refused before it is sent, so a budget is never exceeded."""

    session_calls: int | None = 2
    session_input_tokens: int | None = 12_000
    run_calls: int | None = None
    run_input_tokens: int | None = None
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    refused: int = 0
    _session_start: tuple[int, int, int] = (0, 0, 0)
    _held: tuple[int, int] = (0, 0)  # (calls, input tokens) kept for what comes later in the session

    @contextmanager
    def holding_back(self, calls: int, input_tokens: int) -> Iterator[None]:
        """Requests made inside leave this much of the session's budget for later (the summary
        matters more than classifying a tool): a request that would eat into it is refused."""
        before, self._held = self._held, (calls, input_tokens)
        try:
            yield
        finally:
            self._held = before

    def start_session(self) -> None:
        self._session_start = (self.calls, self.input_tokens, self.output_tokens)

    def session_usage(self) -> tuple[int, int, int]:
        """(calls, input tokens, output tokens) since `start_session`."""
        calls, tokens_in, tokens_out = self._session_start
        return self.calls - calls, self.input_tokens - tokens_in, self.output_tokens - tokens_out

    def session_room(self) -> tuple[int | None, int | None]:
        """(calls, input tokens) the session may still use; None: no limit."""
        calls, tokens_in, _ = self.session_usage()
        room_calls = _least(self.session_calls, self.run_calls, calls, self.calls)
        room_tokens = _least(self.session_input_tokens, self.run_input_tokens, tokens_in, self.input_tokens)
        return room_calls, room_tokens

    def admit(self, input_tokens: int) -> None:
        calls, tokens = self.session_room()
        held_calls, held_tokens = self._held
        if (calls is not None and calls < 1 + held_calls) or (
            tokens is not None and input_tokens > tokens - held_tokens
        ):
            self.refused += 1
            raise LLMBudgetExceeded(
                f"LLM budget reached ({self.describe()}): a request of {input_tokens} input tokens was not sent"
            )
        self.calls += 1
        self.input_tokens += input_tokens

    def describe(self) -> str:
        parts = []
        if self.session_calls is not None or self.session_input_tokens is not None:
            parts.append(
                f"per session {self.session_calls or 'any'} calls, {self.session_input_tokens or 'any'} input tokens"
            )
        if self.run_calls is not None or self.run_input_tokens is not None:
            parts.append(
                f"per run {self.run_calls or 'any'} calls, {self.run_input_tokens or 'any'} input tokens"
            )
        return "; ".join(parts) or "no limit"


def _least(session_limit: int | None, run_limit: int | None, session_used: int, run_used: int) -> int | None:
    rooms = [
        limit - used
        for limit, used in ((session_limit, session_used), (run_limit, run_used))
        if limit is not None
    ]
    return max(0, min(rooms)) if rooms else None


def estimate_tokens(text: str) -> int:
    """Characters / 4: OpenAI's rule of thumb (a tokenizer would need its vocabulary downloaded)."""
    return (len(text) + 3) // 4


class RedactingLLMClient(LLMClient):
    """Wraps an LLM client so that every prompt passes the redactor before it leaves the machine:
    one place guards the tool classifier, the summarizer and whatever uses the client later."""

    def __init__(self, inner: LLMClient, redactor: Redactor, meter: LLMMeter | None = None) -> None:
        super().__init__(inner.config)
        self.inner = inner
        self.redactor = redactor
        self.meter = meter or LLMMeter(None, None)
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
        clean = self._clean(messages)
        self.meter.admit(sum(estimate_tokens(m.content) for m in clean))
        answer = await self.inner.generate_response(
            clean,
            response_model,
            max_tokens,
            model_size,
            group_id,
            prompt_name,
            attribute_extraction=attribute_extraction,
            model=model,
        )
        self.meter.output_tokens += estimate_tokens(json.dumps(answer, default=str))
        return answer

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


def make_llm_client(
    config: LLMConfig, redactor: Redactor | None = None, meter: LLMMeter | None = None
) -> RedactingLLMClient | None:
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
    return RedactingLLMClient(client, redactor or Redactor(), meter)


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
