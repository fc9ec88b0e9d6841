"""The per-request encodings the event loop makes faster are the same as the plain ones: the cache
key (its message strings written by pydantic-core), the request body (pydantic-core) and prompts of
templates without a tag (rendered once)."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from debench.data.base import Doc
from debench.data.prompts import build_messages
from debench.models.base import Request
from debench.models.cache import cache_key
from debench.models.openai_http import OpenAIHTTPModel
from debench.task.bounded_render import render
from debench.task.config import GenerationConfig

IDENTITY = {"name": "openai/stub", "send_grammar": False, "api_base": ["http://127.0.0.1:1/v1"]}
GENERATION = {"temperature": 0.7, "max_tokens": 16, "top_p": 1e-05, "seed": None, "stop": ["\n", "é"]}


def _texts() -> list[str]:
    """Every character up to U+02FF, line and paragraph separators, an emoji, a backslash before a
    "u" (JSON's escape prefix, written literally), and seeded random mixes of all of them."""
    singles = [chr(c) for c in range(0x300)] + ["\u2028", "\u2029", "\U0001f600", "\\u00e9", "\\\\u", "\\"]
    rng = random.Random(46)
    mixes = ["".join(rng.choice(singles) for _ in range(rng.randint(0, 40))) for _ in range(300)]
    plain = ["Score: 4", 'A speech.\nWith two lines\tand a tab, "quotes" and a \\ backslash.']
    return plain + [f"a{s}b" for s in singles] + mixes


def _reference_key(messages: list[dict[str, str]], identity: dict[str, object], grammar: str | None) -> str:
    payload = json.dumps(
        {"model": identity, "messages": messages, "generation": GENERATION, "grammar": grammar},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def test_cache_key_is_the_plain_json_key_for_any_text() -> None:
    for text in _texts():
        messages = [{"role": "system", "content": "You judge."}, {"role": "user", "content": text}]
        assert cache_key(IDENTITY, messages, GENERATION, None) == _reference_key(messages, IDENTITY, None), repr(text)
        assert cache_key(IDENTITY, messages, GENERATION, text) == _reference_key(messages, IDENTITY, text)
    other = {**IDENTITY, "name": "openai/modèle"}
    messages = [{"role": "user", "content": "x"}]
    assert cache_key(other, messages, GENERATION, None) == _reference_key(messages, other, None)
    for odd in (  # a third field; a value that is not a string (written by json, as before)
        [{"role": "user", "name": "é\n", "content": "x"}],
        [{"role": "user", "content": [{"type": "text", "text": "x"}]}],  # type: ignore[dict-item]
        [],
    ):
        assert cache_key(IDENTITY, odd, GENERATION, None) == _reference_key(odd, IDENTITY, None)


def test_cache_key_of_a_lone_surrogate_fails_as_before() -> None:
    messages = [{"role": "user", "content": "a\ud800b"}]
    with pytest.raises(UnicodeEncodeError):
        _reference_key(messages, IDENTITY, None)
    with pytest.raises(UnicodeEncodeError):
        cache_key(IDENTITY, messages, GENERATION, None)


def _request(text: str, generation: GenerationConfig) -> Request:
    messages = [{"role": "system", "content": "You judge."}, {"role": "user", "content": text}]
    return Request.model_construct(messages=messages, generation=generation, doc=None, task=None, grammar_text=None)


def test_request_body_is_the_same_json() -> None:
    model = OpenAIHTTPModel("openai/stub", api_base="http://127.0.0.1:1/v1", extra={"extra_body": {"top_k": 5}})
    generation = GenerationConfig(temperature=0.7, max_tokens=16, top_p=1e-05, stop=["\n", "é"])
    for text in _texts():
        request = _request(text, generation)
        plain = json.dumps(model.batch_body(request), ensure_ascii=False).encode("utf-8")
        assert json.loads(model._body(request)) == json.loads(plain), repr(text)
    with pytest.raises(UnicodeEncodeError):  # what the plain encoder raised: the sample is an error, as before
        model._body(_request("a\ud800b", generation))


@pytest.mark.parametrize(
    "system",
    ["You judge.", "  You judge.\n", "Line one\r\nline two\r\n\r\n", "Tabs\tand \\ backslashes } and %} alone"],
)
def test_a_template_without_a_tag_renders_as_before(system: str) -> None:
    doc = Doc(doc_id="d1", fields={"speech": "Hello {{ not a tag in the data }}"})
    messages = build_messages(system, "Speech: {{ speech }}", doc)
    assert messages[0] == {"role": "system", "content": render(system, {}).strip()}
    assert messages[1] == {"role": "user", "content": "Speech: Hello {{ not a tag in the data }}"}
    assert build_messages(system, "Speech: {{ speech }}", doc) == messages


@pytest.mark.parametrize(
    "secret",
    [
        "AIza" + "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
        "AKIA" + "ABCDEFGHIJKLMNOP",
        "ASIA" + "QRSTUVWXYZ234567",
        "xoxb-" + "123456789012-AbCdEfGhIj",
        "sk-proj-" + "AbCdEfGhIjKlMnOpQrStUvWx",
    ],
)
def test_the_samples_log_redaction_finds_every_shape_in_a_long_line(secret: str) -> None:
    """The prefilter that spares the key shapes' expressions on a line without a key (literal
    prefixes by regular expression, the rest by byte translation) lets every shape through."""
    from debench.core.redact import MASK, Redactor

    speech = "An opening speech, five kilobytes of it. " * 120
    line = json.dumps({"doc_id": "d1", "messages": [{"role": "user", "content": speech}], "response": "Score: 4"})
    redactor = Redactor(env={})
    assert redactor.json_text(line) == line
    leaked = line.replace("Score: 4", f"Score: 4 ({secret})")
    assert redactor.json_text(leaked) == line.replace("Score: 4", f"Score: 4 ({MASK})")
