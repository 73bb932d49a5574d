"""LLM and embedder clients from the config, talking to the fake OpenAI server."""

from __future__ import annotations

import pytest
from fake_openai import FakeOpenAI
from graphiti_core.prompts.models import Message
from pydantic import BaseModel

from graphiti_session_tracking.config import ConfigError, EmbedderConfig, LLMConfig
from graphiti_session_tracking.llm import make_embedder, make_llm_client


class Answer(BaseModel):
    word: str


def test_disabled_means_no_client() -> None:
    assert make_llm_client(LLMConfig()) is None
    assert make_embedder(EmbedderConfig()) is None


def test_enabled_without_key_or_url_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"\$OPENAI_API_KEY is not set"):
        make_llm_client(LLMConfig(enabled=True))


async def test_configured_clients_reach_the_endpoint(fake_openai: FakeOpenAI) -> None:
    llm = make_llm_client(LLMConfig(enabled=True, base_url=fake_openai.base_url, model="local-model"))
    assert llm is not None
    fake_openai.reply_json({"word": "hello"})
    assert await llm.generate_response([Message(role="user", content="say hello")], Answer) == {
        "word": "hello"
    }
    assert fake_openai.calls("/chat/completions")[0].body["model"] == "local-model"
    embedder = make_embedder(EmbedderConfig(enabled=True, base_url=fake_openai.base_url, dimensions=8))
    assert embedder is not None
    assert len(await embedder.create("text")) == 8
