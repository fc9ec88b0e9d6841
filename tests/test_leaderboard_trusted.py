"""The allowlist of endpoints that may verify an entry: data (safe_load, a schema), public provider
URLs only, and an identity matched by name and api base — a submitter's own endpoint never."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lbhelp import TRUSTED

from debench.core.errors import UserError
from debench.leaderboard.trusted import (
    TRUSTED_SCHEMA_PATH,
    load_trusted,
    non_public_reason,
    trust,
    trusted_json_schema,
)


def test_the_committed_allowlist_loads_and_its_schema_is_current() -> None:
    trusted = load_trusted(TRUSTED)
    assert {p.id for p in trusted.providers} == {"openai", "anthropic"} and [s.model for s in trusted.served] == [
        "local/smollm2"
    ]
    assert TRUSTED_SCHEMA_PATH.read_text() == json.dumps(trusted_json_schema(), indent=2, sort_keys=True) + "\n", (
        "run python scripts/write_schemas.py"
    )


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:8000/v1", "loopback"),
        ("http://localhost:8000/v1", "local host name"),
        ("http://[::1]/v1", "loopback"),
        ("http://[::ffff:127.0.0.1]/v1", "loopback"),
        ("http://10.1.2.3/v1", "private"),
        ("http://192.168.0.7/v1", "private"),
        ("http://169.254.169.254/latest", "link-local"),
        ("http://0.0.0.0:80/v1", "unspecified"),
        ("http://gpu-box/v1", "single-label"),
        ("http://vllm.internal/v1", "local host name"),
    ],
)
def test_an_endpoint_the_submitter_controls_is_never_verified(url: str, why: str) -> None:
    assert why in (non_public_reason(url) or "")
    t = trust({"name": "openai/gpt-4o", "api_base": [url]}, load_trusted(TRUSTED))
    assert not t.ok and url in (t.reason or "") and "can never verify" in (t.reason or "")


def test_identities_are_matched_by_name_and_api_base() -> None:
    trusted = load_trusted(TRUSTED)
    assert trust({"name": "gpt-4o", "send_grammar": False}, trusted).endpoints[0].id == "openai"
    assert trust({"name": "openai/gpt-4o", "api_base": ["https://api.openai.com/v1/"]}, trusted).ok
    not_listed = trust({"name": "openai/gpt-4o", "api_base": ["https://gold.example.com/v1"]}, trusted)
    assert not not_listed.ok and "not one of openai's public endpoints" in (not_listed.reason or "")
    assert "not a model the leaderboard can re-judge" in (trust({"name": "mistral/large"}, trusted).reason or "")
    served = trust(
        {"name": "local/smollm2", "weights": "SmolLM2-135M-Instruct.Q4_1.gguf", "send_grammar": True}, trusted
    )
    assert served.ok and served.endpoints[0].kind == "served"
    # a served model with an api_base is someone else's server
    assert not trust({"name": "local/smollm2", "api_base": ["https://example.com/v1"]}, trusted).ok
    ensemble = {
        "name": "ensemble-majority(baseline/first,local/smollm2,openai/judge)",
        "members": [
            {"name": "baseline/first", "seed": 0},
            {"name": "local/smollm2"},
            {"name": "openai/judge", "api_base": ["http://127.0.0.1:9/v1"]},
        ],
    }
    assert "member openai/judge: its api_base http://127.0.0.1:9/v1 is a loopback address" in (
        trust(ensemble, trusted).reason or ""
    )


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        (
            'schema_version: "1.0"\nproviders:\n  - {id: mine, description: x, models: ["*"], api_bases: '
            '["http://127.0.0.1:8000/v1"], key_env: K}\n',
            "providers.0.api_bases",
            "reached over https://",
        ),
        (
            'schema_version: "1.0"\nproviders:\n  - {id: mine, description: x, models: ["*"], api_bases: '
            '["https://10.0.0.2/v1"], key_env: K}\n',
            "providers.0.api_bases",
            "is a private address",
        ),
        (
            'schema_version: "1.0"\nserved:\n  - {id: a, description: x, model: local/smollm2}\n'
            "  - {id: a, description: y, model: gguf/x.gguf}\n",
            "id",
            "used twice",
        ),
        (
            'schema_version: "1.0"\nserved: !!python/object/apply:os.system ["true"]\n',
            None,
            "cannot read the trusted-endpoints file",
        ),
        ('schema_version: "1.0"\nproviders: []\nextra: 1\n', None, "does not follow its schema"),
    ],
)
def test_a_bad_allowlist_is_one_line(tmp_path: Path, text: str, field: str | None, message: str) -> None:
    path = tmp_path / "trusted.yaml"
    path.write_text(text)
    with pytest.raises(UserError) as exc:
        load_trusted(path)
    assert message in str(exc.value) and str(path) in str(exc.value)
    if field:
        assert f"field '{field}" in str(exc.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "{what} not found"),
        ("a: [unclosed\n", "cannot read the {what} (ParserError)"),
        ('schema_version: "1.0"\nbudgets: !!python/object/apply:os.system ["true"]\n', "cannot read the {what}"),
        ('schema_version: "1.0"\nunknown_key: 1\n', "does not follow its schema"),
    ],
)
def test_both_maintainers_files_give_the_same_one_line_errors(tmp_path: Path, text: str | None, message: str) -> None:
    """leaderboard/maintainers.yaml and leaderboard/trusted_endpoints.yaml are read by one loader:
    a file that is missing, not YAML, or off its schema is the same one line for either."""
    from debench.leaderboard.maintainers import load_maintainers

    for load, what in ((load_maintainers, "maintainers' file"), (load_trusted, "trusted-endpoints file")):
        path = tmp_path / f"{what[:5]}.yaml"
        if text is not None:
            path.write_text(text)
        with pytest.raises(UserError) as exc:
            load(path)
        line = str(exc.value)
        assert len(line.splitlines()) == 1 and str(path) in line and message.format(what=what) in line, line
