"""``debench data fetch`` against a local HTTP server on 127.0.0.1 serving archives in the
published formats: the Debatrix PanelBench release (``PanelBench.tar.gz`` holding
``data/DebateArt.tar.gz`` and ``data/BP-Competition.tar.gz``) built from debench's own samples (and,
where it is there, from the real data), and Hub files under ``/datasets/<repo>/resolve/<rev>/``.
"""

from __future__ import annotations

import io
import json
import tarfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml
from clihelp import run_cli
from conftest import real_data_dir

from debench.core.errors import UserError
from debench.core.paths import portable_path
from debench.data.base import get_adapter
from debench.data.fetch import Fetcher, fetch_targets
from debench.data.fetched import RECORD_NAME, data_root, fetched_dir
from debench.data.loading import SAMPLES_DIR, content_hash, load_task_data
from debench.run.task_files import load_task_file
from debench.run.task_lookup import load_task, tasks_dir

TASKS = tasks_dir()


class Server:
    """Serves ``files`` (path -> bytes); ``short`` paths announce more bytes than they send."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.short: set[str] = set()
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests.append(self.path)
                body = outer.files.get(self.path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body) * 2 if self.path in outer.short else len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[Server]:
    srv = Server()
    try:
        yield srv
    finally:
        srv.close()


def _tar_gz(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _tree(folder: Path, prefix: str) -> dict[str, bytes]:
    return {
        f"{prefix}{p.relative_to(folder).as_posix()}": p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def panelbench(
    debateart: Path, bp: Path, *, top: str = "PanelBench/", inner_top: bool = True, tamper: bool = False
) -> bytes:
    """An archive in the published PanelBench layout (README, data/<set>.tar.gz, debatrix_config/)."""
    da = _tree(debateart, "DebateArt/" if inner_top else "")
    if tamper:  # one gold label changed: a valid archive with the wrong content
        key = next(k for k in da if k.endswith("final.csv"))
        da[key] = da[key].replace(b"1.0", b"0.0", 1)
    return _tar_gz({
        f"{top}README.md": b"PanelBench\n",
        f"{top}data/DebateArt.tar.gz": _tar_gz(da),
        f"{top}data/BP-Competition.tar.gz": _tar_gz(_tree(bp, "BP-Competition/" if inner_top else "")),
        f"{top}debatrix_config/DebateArt/panel.yml": b"{}\n",
    })  # fmt: skip


def fixture_task(folder: Path, base: str, name: str, **fetch: object) -> Path:
    """A task file that includes a shipped one, fetching from the test server (the shipped
    content hash is replaced by the one of debench's samples the archive is built from)."""
    sample = {"_debateart.yaml": "debateart", "bp_top_team.yaml": "bp_competition"}[base]
    adapter = {"_debateart.yaml": "debateart", "bp_top_team.yaml": "bp_competition"}[base]
    raw = {
        "include": str(TASKS / base),
        "name": name,
        "description": f"{name} fixture",
        "dataset": {
            "local_dir": f"fixture/{name}",
            "fetch": {"content_hash": content_hash(SAMPLES_DIR / sample, get_adapter(adapter).patterns), **fetch},
        },
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def _setup(server: Server, tmp_path: Path, archive: bytes, **fetch: object) -> tuple[Path, Path]:
    server.files["/v0.1/PanelBench.tar.gz"] = archive
    url = server.url + "/v0.1/PanelBench.tar.gz"
    da = fixture_task(
        tmp_path / "tasks", "_debateart.yaml", "fx_debateart", url=url, member="data/DebateArt.tar.gz", **fetch
    )
    bp = fixture_task(
        tmp_path / "tasks", "bp_top_team.yaml", "fx_bp", url=url, member="data/BP-Competition.tar.gz", **fetch
    )
    return da, bp


def _leftovers() -> list[str]:
    root = data_root()
    return sorted(p.name for p in root.iterdir() if p.name.startswith(".")) if root.exists() else []


@pytest.mark.parametrize("layout", ["top-level folders", "flat"])
def test_fetch_then_auto_uses_the_fetched_copy(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    flat = layout == "flat"
    da, bp = _setup(
        server,
        tmp_path,
        panelbench(
            SAMPLES_DIR / "debateart",
            SAMPLES_DIR / "bp_competition",
            top="" if flat else "PanelBench/",
            inner_top=not flat,
        ),
    )
    monkeypatch.delenv("DEBENCH_DATA_DIR", raising=False)
    proc = run_cli("data", "fetch", f"{da},{bp}", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert server.requests == ["/v0.1/PanelBench.tar.gz"]  # one archive, two data sets: downloaded once
    assert proc.stdout.count(": fetched from " + server.url) == 2 and proc.stdout.count("checked: content_hash") == 2
    for path, n_docs in ((da, 4), (bp, 2)):
        task = load_task_file(path)
        target = fetched_dir(task.dataset.local_dir or "")
        record = json.loads((target / RECORD_NAME).read_text())
        assert record["checked"] == ["content_hash"] and record["content_hash"] == task.dataset.fetch.content_hash
        ds = load_task_data(task, "auto")  # no DEBENCH_DATA_DIR, Hub offline: the fetched copy, not the sample
        assert (
            ds.source == "local"
            and ds.location == portable_path(str(target))
            and not ds.is_sample
            and len(ds.docs) == n_docs
        )
        assert load_task_data(task, "local").location == portable_path(str(target))
    assert _leftovers() == []
    # the same command again: nothing downloaded
    again = run_cli("data", "fetch", str(da), "--no-progress")
    assert again.returncode == 0 and "already fetched" in again.stdout and len(server.requests) == 1
    forced = run_cli("data", "fetch", str(da), "--force", "--no-progress")
    assert forced.returncode == 0 and ": fetched from" in forced.stdout and len(server.requests) == 2
    # an eval on the fetched copy says so in its results
    out = tmp_path / "out"
    ev = run_cli("eval", "--task", str(bp), "--model", "baseline/last", "--output-dir", str(out), "--no-progress")
    assert ev.returncode == 0, ev.stderr
    res = json.loads(next((out / "baseline__last").glob("results_fx_bp_*.json")).read_text())
    assert (
        res["dataset"]["location"] == portable_path(str(fetched_dir("fixture/fx_bp")))
        and res["dataset"]["is_sample"] is False
    )


def _refused(proc, what: str) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and what in proc.stderr, proc.stderr
    assert "nothing was kept" in proc.stderr or "refused" in proc.stderr


def test_a_truncated_archive_is_refused_and_nothing_is_left(server: Server, tmp_path: Path) -> None:
    good = panelbench(SAMPLES_DIR / "debateart", SAMPLES_DIR / "bp_competition")
    da, _ = _setup(server, tmp_path, good[: len(good) // 2])
    _refused(run_cli("data", "fetch", str(da), "--no-progress"), "is corrupt or truncated")
    assert not fetched_dir("fixture/fx_debateart").exists() and _leftovers() == []
    # a transfer cut short (fewer bytes than announced)
    server.files["/v0.1/PanelBench.tar.gz"] = good
    server.short.add("/v0.1/PanelBench.tar.gz")
    proc = run_cli("data", "fetch", str(da), "--no-progress")
    assert (
        proc.returncode == 2
        and proc.stderr.count("\n") == 1
        and ("truncated" in proc.stderr or "broke off" in proc.stderr)
    ), proc.stderr
    assert not fetched_dir("fixture/fx_debateart").exists() and _leftovers() == []


def test_a_wrong_checksum_is_refused_and_a_good_copy_survives(server: Server, tmp_path: Path) -> None:
    good = panelbench(SAMPLES_DIR / "debateart", SAMPLES_DIR / "bp_competition")
    da, _ = _setup(server, tmp_path, good)
    assert run_cli("data", "fetch", str(da), "--no-progress").returncode == 0
    before = {p.name: p.read_bytes() for p in (fetched_dir("fixture/fx_debateart") / "gold").iterdir()}
    # a valid archive whose DebateArt gold differs from the known-good content
    server.files["/v0.1/PanelBench.tar.gz"] = panelbench(
        SAMPLES_DIR / "debateart", SAMPLES_DIR / "bp_competition", tamper=True
    )
    _refused(run_cli("data", "fetch", str(da), "--force", "--no-progress"), "content hash is sha256:")
    after = {p.name: p.read_bytes() for p in (fetched_dir("fixture/fx_debateart") / "gold").iterdir()}
    assert after == before and _leftovers() == []
    # an archive sha256 shipped with the task that the download does not match
    wrong, _ = _setup(server, tmp_path / "w", good, sha256="0" * 64)
    wrong_text = wrong.read_text().replace("fixture/fx_debateart", "fixture/fx_wrong")
    wrong.write_text(wrong_text)
    _refused(run_cli("data", "fetch", str(wrong), "--no-progress"), "the task expects 0000")
    assert not fetched_dir("fixture/fx_wrong").exists()


def test_a_fetched_copy_changed_afterwards_is_not_used_silently(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEBENCH_DATA_DIR", raising=False)
    da, _ = _setup(server, tmp_path, panelbench(SAMPLES_DIR / "debateart", SAMPLES_DIR / "bp_competition"))
    assert run_cli("data", "fetch", str(da), "--no-progress").returncode == 0
    gold = fetched_dir("fixture/fx_debateart") / "gold" / "final.csv"
    gold.write_text(gold.read_text().replace("1.0", "0.0", 1))
    with pytest.raises(UserError, match="changed since it was fetched"):
        load_task_data(load_task_file(da), "auto")


def test_members_outside_the_folder_are_refused(server: Server, tmp_path: Path) -> None:
    evil = _tar_gz({"data/DebateArt.tar.gz": _tar_gz({"../escaped.txt": b"x", "gold/final.csv": b"x"})})
    da, _ = _setup(server, tmp_path, evil)
    proc = run_cli("data", "fetch", str(da), "--no-progress")
    assert proc.returncode == 2 and "refused" in proc.stderr and proc.stderr.count("\n") == 1
    assert not list(tmp_path.rglob("escaped.txt")) and not list(data_root().rglob("escaped.txt")) and _leftovers() == []


def test_a_missing_member_and_an_unreachable_server_are_one_line(server: Server, tmp_path: Path) -> None:
    da, _ = _setup(server, tmp_path, _tar_gz({"README.md": b"x"}))
    proc = run_cli("data", "fetch", str(da), "--no-progress")
    assert proc.returncode == 2 and "holds no 'data/DebateArt.tar.gz': not the published layout" in proc.stderr
    offline = fixture_task(
        tmp_path / "off",
        "_debateart.yaml",
        "fx_off",
        url="http://127.0.0.1:9/PanelBench.tar.gz",
        member="data/DebateArt.tar.gz",
    )
    proc = run_cli("data", "fetch", str(offline), "--no-progress")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "DEBENCH_DATA_DIR" in proc.stderr, proc.stderr


@pytest.mark.real_data("checks the real files against the content hashes the shipped tasks name")
def test_hub_files_of_the_shipped_ibm_tasks_checked_against_the_shipped_sha256(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real data.csv served as the Hub serves it: the shipped task's sha256 and content hash hold."""
    real = real_data_dir("ibm_debate_speeches") / "data.csv"
    server.files["/datasets/noystl/speech-quality-dataset/resolve/main/data.csv"] = real.read_bytes()
    env = {"HF_ENDPOINT": server.url, "HF_HUB_OFFLINE": "0"}
    proc = run_cli("data", "fetch", "ibm_speeches", "--no-progress", env=env)
    assert proc.returncode == 0, proc.stderr
    assert server.requests == [
        "/datasets/noystl/speech-quality-dataset/resolve/main/data.csv"
    ]  # two tasks, one data set
    assert "checked: sha256 and content_hash" in proc.stdout
    monkeypatch.delenv("DEBENCH_DATA_DIR", raising=False)
    ds = load_task_data(load_task("ibm_speech_likert")[0], "auto")
    assert len(ds.docs) == 631 and ds.location == portable_path(str(fetched_dir("ibm_debate_speeches")))
    assert (
        ds.content_hash == load_task_data(load_task("ibm_speech_likert")[0], "local", real.parent.parent).content_hash
    )
    # a Hub file that differs from the published one is refused
    server.files["/datasets/noystl/speech-quality-dataset/resolve/main/data.csv"] = real.read_bytes()[:-10]
    proc = run_cli("data", "fetch", "ibm_speech_likert", "--force", "--no-progress", env=env)
    assert proc.returncode == 2 and "sha256 of noystl/speech-quality-dataset/data.csv is" in proc.stderr
    assert len(load_task_data(load_task("ibm_speech_likert")[0], "auto").docs) == 631  # the good copy is still there


@pytest.mark.real_data("checks the real files against the content hashes the shipped tasks name")
def test_real_panelbench_layout_checks_the_shipped_content_hashes(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real DebateArt and BP files packed as the release packs them pass the shipped tasks'
    content hashes through the same fetch code (only the URL points at the test server)."""
    real = real_data_dir("debatrix_panelbench")
    monkeypatch.delenv("DEBENCH_DATA_DIR", raising=False)
    server.files["/PanelBench.tar.gz"] = panelbench(real / "DebateArt", real / "BP-Competition")
    tasks = []
    for name in ("debateart_winner", "bp_top_team"):
        task = load_task(name)[0]
        assert (
            task.dataset.fetch is not None
            and task.dataset.fetch.url
            and task.dataset.fetch.url.startswith("https://github.com/ljcleo/debatrix/releases/")
        )
        fetch = task.dataset.fetch.model_copy(update={"url": server.url + "/PanelBench.tar.gz"})
        tasks.append(task.model_copy(update={"dataset": task.dataset.model_copy(update={"fetch": fetch})}))
    targets, nothing = fetch_targets(tasks)
    assert not nothing and [t.local_dir for t in targets] == [
        "debatrix_panelbench/DebateArt",
        "debatrix_panelbench/BP-Competition",
    ]
    with Fetcher(progress=False) as fetcher:
        outcomes = [fetcher.fetch(t) for t in targets]
    assert [o.status for o in outcomes] == ["fetched", "fetched"] and len(server.requests) == 1
    assert [len(load_task_data(t, "auto").docs) for t in tasks] == [100, 22]


def test_a_data_set_without_a_checksum_needs_allow_unverified(
    server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DEBENCH_DATA_DIR", raising=False)
    sample = SAMPLES_DIR / "debatebench"
    for name in ("scores.xlsx", "Cleaned Speeches.zip"):
        server.files[f"/datasets/utkarsh2105/DebateBench/resolve/main/{name.replace(' ', '%20')}"] = (
            sample / name
        ).read_bytes()
    env = {"HF_ENDPOINT": server.url, "HF_HUB_OFFLINE": "0"}
    proc = run_cli("data", "fetch", "debatebench", "--no-progress", env=env)
    assert (
        proc.returncode == 1
        and "NOT fetched" in proc.stderr
        and "--allow-unverified" in proc.stderr
        and not server.requests
    )
    proc = run_cli("data", "fetch", "debatebench_verdict", "--allow-unverified", "--no-progress", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "checked: nothing (--allow-unverified)" in proc.stdout and len(server.requests) == 2
    ds = load_task_data(load_task("debatebench_verdict")[0], "auto")
    assert ds.location == portable_path(str(fetched_dir("debatebench"))) and not ds.is_sample
    assert ds.content_hash == content_hash(sample, get_adapter("debatebench").patterns)


@pytest.mark.parametrize(
    ("fetch", "field"),
    [
        ({"url": "https://x/a.tar.gz", "sha256": "ABC"}, "dataset.fetch.sha256"),
        ({"url": "https://x/a.tar.gz", "content_hash": "md5:00"}, "dataset.fetch.content_hash"),
        ({"url": "https://x/a.tar.gz", "files": {"a.csv": None}}, "dataset.fetch"),
        ({"member": "data/x.tar.gz", "files": {"a.csv": None}}, "dataset.fetch"),
    ],
    ids=["bad-sha256", "bad-content-hash", "url-and-files", "member-without-url"],
)
def test_invalid_fetch_sections_name_the_field(tmp_path: Path, fetch: dict[str, object], field: str) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        yaml.safe_dump({"include": str(TASKS / "ibm_speech_likert.yaml"), "name": "t", "dataset": {"fetch": fetch}})
    )
    with pytest.raises(UserError) as info:
        load_task_file(path)
    assert str(path) in str(info.value) and f"field '{field}'" in str(info.value) and "\n" not in str(info.value)


def test_a_task_that_drops_the_hub_has_nothing_to_fetch(tmp_path: Path) -> None:
    """Including ibm_speech_likert with ``hub: null`` (as the benchmark task does) keeps a valid task;
    its inherited Hub files are not fetched."""
    path = tmp_path / "mine.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "include": str(TASKS / "ibm_speech_likert.yaml"),
                "name": "mine",
                "dataset": {"local_dir": "mine", "hub": None},
            }
        )
    )
    task = load_task_file(path)
    assert fetch_targets([task]) == ([], ["mine"])
    proc = run_cli("data", "fetch", str(path))
    assert proc.returncode == 0 and "nothing to fetch for mine" in proc.stdout
