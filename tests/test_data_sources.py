"""Where data comes from: the Hub path (through huggingface_hub), a local copy, or the sample."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import real_data_dir

from debench.core.errors import UserError
from debench.data.loading import load_task_data
from debench.run.task_lookup import load_task


@pytest.mark.real_data("a Hub snapshot of the real data.csv (all 631 IBM speeches)")
def test_hub_download_goes_through_the_same_adapter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Hub is unreachable here: a fake snapshot_download returns a snapshot folder holding the
    real published file, exactly as huggingface_hub lays it out (…/snapshots/<commit>/data.csv)."""
    src = real_data_dir("ibm_debate_speeches") / "data.csv"
    snap = tmp_path / "snapshots" / "0123456789abcdef0123456789abcdef01234567"
    snap.mkdir(parents=True)
    os.symlink(src, snap / "data.csv")
    calls = []

    def fake_snapshot_download(**kwargs):
        calls.append(kwargs)
        return str(snap)

    import huggingface_hub

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_snapshot_download)
    task, _ = load_task("ibm_speech_likert")
    ds = load_task_data(task, "hub")
    assert calls == [
        {
            "repo_id": "noystl/speech-quality-dataset",
            "repo_type": "dataset",
            "revision": None,
            "allow_patterns": ["data.csv"],
        }
    ]
    assert ds.source == "hub" and ds.revision == snap.name and len(ds.docs) == 631 and not ds.is_sample
    local = load_task_data(task, "local", src.parent.parent)
    assert local.content_hash == ds.content_hash  # same bytes, same hash, wherever they came from


def test_auto_falls_back_to_the_sample_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEBENCH_DATA_DIR", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    task, _ = load_task("ibm_speech_likert")
    ds = load_task_data(task, "auto")  # no network here: the Hub fails fast
    assert ds.is_sample and ds.source == "sample"


def test_local_source_needs_a_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEBENCH_DATA_DIR", raising=False)
    task, _ = load_task("bp_top_team")
    with pytest.raises(UserError, match="needs --data-dir or DEBENCH_DATA_DIR"):
        load_task_data(task, "local")
    with pytest.raises(UserError, match="has no Hub source"):
        load_task_data(task, "hub")
