"""The fake OpenAI server answers Graphiti's real LLM and embedder clients."""

from __future__ import annotations

from fake_openai import FakeOpenAI
from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig
from graphiti_core.llm_client.config import LLMConfig
from graphiti_core.llm_client.openai_client import OpenAIClient
from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient
from graphiti_core.prompts.models import Message
from pydantic import BaseModel


class Verdict(BaseModel):
    label: str
    confidence: float


async def test_generic_client_structured_reply_and_request_is_recorded(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_json({"label": "testing", "confidence": 0.9})
    client = OpenAIGenericClient(LLMConfig(api_key="test-key", base_url=fake_openai.base_url, model="m1"))
    answer = await client.generate_response([Message(role="user", content="classify pytest")], Verdict)
    assert answer == {"label": "testing", "confidence": 0.9}
    (request,) = fake_openai.calls("/chat/completions")
    assert request.body["model"] == "m1"
    assert "classify pytest" in str(request.body["messages"])
    assert request.headers["authorization"] == "Bearer test-key"


async def test_responses_api_client_parses_structured_output(fake_openai: FakeOpenAI) -> None:
    fake_openai.reply_json({"label": "exploring", "confidence": 0.5})
    client = OpenAIClient(LLMConfig(api_key="k", base_url=fake_openai.base_url, model="m2"))
    answer = await client.generate_response([Message(role="user", content="what is this")], Verdict)
    assert answer["label"] == "exploring"
    assert len(fake_openai.calls("/responses")) == 1


async def test_embedder_is_deterministic(fake_openai: FakeOpenAI) -> None:
    embedder = OpenAIEmbedder(
        OpenAIEmbedderConfig(api_key="k", base_url=fake_openai.base_url, embedding_dim=16)
    )
    one = await embedder.create("same text")
    batch = await embedder.create_batch(["same text", "other"])
    assert len(one) == 16 and batch[0] == one and batch[1] != one


async def test_scripted_errors_reach_the_client(fake_openai: FakeOpenAI) -> None:
    import openai
    import pytest

    fake_openai.fail(400)
    client = openai.AsyncOpenAI(api_key="k", base_url=fake_openai.base_url, max_retries=0)
    with pytest.raises(openai.BadRequestError):
        await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
