"""``vllm/<model>``: what its model arguments make of it before any server starts: the flags of the
``vllm serve`` debench will run, the identity they give (open weights named by their content, not by a folder
of this machine), and the settings refused in one line. Its server's life is test_vllm_server.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from debench.core.errors import UserError
from debench.models.factory import make_model


def test_every_model_argument_becomes_its_documented_flag() -> None:
    model = make_model(
        "vllm/org/judge-7b@revision=abc123;dtype=bfloat16",
        model_args="tensor_parallel_size=2,data_parallel_size=4,max_model_len=8192,gpu_memory_utilization=0.85,"
        "quantization=awq,server_args=--enforce-eager --max-num-seqs 64,vllm_command=uv run vllm,startup_timeout=30",
    )
    spec = model.spec
    assert spec.argv == (
        "uv",
        "run",
        "vllm",
        "serve",
        "org/judge-7b",
        "--served-model-name",
        "org/judge-7b",
        "--revision",
        "abc123",
        "--tensor-parallel-size",
        "2",
        "--data-parallel-size",
        "4",
        "--max-model-len",
        "8192",
        "--gpu-memory-utilization",
        "0.85",
        "--dtype",
        "bfloat16",
        "--quantization",
        "awq",
        "--enforce-eager",
        "--max-num-seqs",
        "64",
    )
    assert spec.startup_timeout == 30 and model.default_concurrency == 4 * 32
    assert model.identity() == {
        "name": "vllm/org/judge-7b",
        "send_grammar": False,
        "weights": {"source": "hub", "repo_id": "org/judge-7b", "revision": "abc123"},
        "server": {
            "dtype": "bfloat16",
            "quantization": "awq",
            "max_model_len": 8192,
            "server_args": ["--enforce-eager", "--max-num-seqs", "64"],
        },
    }
    parallel = make_model(
        "vllm/org/judge-7b@revision=abc123;dtype=bfloat16",
        model_args="tensor_parallel_size=8,quantization=awq,max_model_len=8192,"
        "server_args=--enforce-eager --max-num-seqs 64",
    )
    assert parallel.identity() == model.identity()  # how many GPUs serve it does not change which model answers


@pytest.mark.parametrize(
    ("model", "args", "error"),
    [
        ("vllm/org/m", "grammar=true", "model argument 'grammar' does not apply to vllm/org/m"),
        ("vllm/org/m", "n_parallel=2", "model argument 'n_parallel' does not apply to vllm/org/m"),
        ("openai/m", "tensor_parallel_size=2", "model argument 'tensor_parallel_size' does not apply to openai/m"),
        ("local/smollm2", "dtype=half", "model argument 'dtype' does not apply to local/smollm2"),
        ("vllm/org/m", "tensor_paralel_size=2", "did you mean 'tensor_parallel_size'?"),
        ("vllm/org/m", "tensor_parallel_size=two", "tensor_parallel_size=two: expected a whole number"),
        ("vllm/org/m", "dtype=half --trust-remote-code", "dtype=half --trust-remote-code: expected one word"),
        (
            "vllm/org/m",
            "gpu_memory_utilization=1.5",
            "gpu_memory_utilization=1.5: input should be less than or equal to 1",
        ),
        ("vllm/org/m", "server_args=--port 9", "server_args: debench sets --port itself"),
        (
            "vllm/org/m",
            "server_args=--tensor-parallel-size=2",
            "give --tensor-parallel-size as the model argument tensor_parallel_size=",
        ),
        ("vllm/org/m", "server_args=--chat-template 'x", "server_args: No closing quotation"),
        ("vllm/./no/such/checkpoint", None, "no such file or folder: ./no/such/checkpoint"),
        ("vllm/", None, "'vllm/' names no model"),
    ],
)
def test_settings_that_would_not_apply_are_one_line(model: str, args: str | None, error: str) -> None:
    with pytest.raises(UserError) as exc:
        make_model(model, model_args=args)
    assert error in str(exc.value) and "\n" not in str(exc.value)


def test_a_local_checkpoint_is_named_by_its_content(tmp_path: Path) -> None:
    ckpt = tmp_path / "ckpt"
    (ckpt / "sub").mkdir(parents=True)
    (ckpt / "config.json").write_text('{"architectures": ["LlamaForCausalLM"]}')
    (ckpt / "sub" / "model.safetensors").write_bytes(bytes(range(256)) * 64)
    (ckpt / ".cache").mkdir()
    (ckpt / ".cache" / "download.lock").write_text("x")
    first = make_model(f"vllm/{ckpt}")
    assert first.spec.argv[2] == str(ckpt.resolve())
    weights = first.identity()["weights"]
    assert weights["source"] == "path" and weights["files"] == 2  # hidden files are not weights
    assert (
        first.name == first.identity()["name"] == f"vllm/ckpt#{weights['sha256'][:12]}"
    )  # no folder of this machine in its name
    copy = tmp_path / "elsewhere" / "same"
    copy.parent.mkdir()
    subprocess.run(["cp", "-r", str(ckpt), str(copy)], check=True)
    (copy / ".cache" / "download.lock").write_text("other")
    assert make_model(f"vllm/{copy}").identity()["weights"] == weights  # same bytes elsewhere: the same weights
    (copy / "sub" / "model.safetensors").write_bytes(bytes(range(256)) * 63 + bytes(reversed(range(256))))
    assert make_model(f"vllm/{copy}").identity()["weights"]["sha256"] != weights["sha256"]
    with pytest.raises(UserError, match="revision names a Hub commit"):
        make_model(f"vllm/{ckpt}@revision=main")
