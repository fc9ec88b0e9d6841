"""Prove that a change (a refactor) changed no behaviour: snapshot debench's outputs on two trees, \
compare byte for byte.

    python scripts/check_identical_outputs.py snapshot OUT_DIR [--repo PATH] [--stub-module MOD] [--stub-port N]
    python scripts/check_identical_outputs.py compare OLD_DIR NEW_DIR

debench is driven only through its command line, never imported here, so one copy of this file
snapshots trees whose module layout differs. Each command runs as the tree's own ``debench`` console
script (its pyproject's ``[project.scripts]``, run by this Python with the tree first on ``PYTHONPATH``
beside a generated dist-info holding the tree's own entry points, as ``pip install -e TREE`` would),
in a fresh temporary folder with a fresh, empty ``DEBENCH_CACHE_DIR`` and ``XDG_CACHE_HOME`` in it
and ``DEBENCH_DATA_DIR`` as set (else ``/work/shared/datasets``). The commands, in order:

1. ``tasks``; ``eval --task GROUP --model baseline/B`` for every group (and ungrouped task) that
   ``tasks`` lists and every baseline kind (random, majority, first, last, longest, length,
   constant:75; the ones a task does not take fail, and that message is recorded too), on the real
   data (DebateBench's labels are not there offline: it fails, recorded too); ``baseline/random``
   again with ``--data-source sample`` (the packaged samples); then through the stub server:
   ``ibm_speech_likert`` (every speech), ``bp_top_team`` and ``debateart_winner --method debatrix-f``;
2. ``score`` of the stub run's samples log, ``compare`` of two ``ibm_speech_likert`` results files
   (random vs length), ``view`` of two runs;
3. ``arena`` (three debaters and a judge on the stub server, whose answers are a deterministic
   function of each request, at a fixed port: the api base is part of every cache key), ``arena rank``
   on its judgments, ``view`` of the arena folder. Whatever the stub answers runs with
   ``--concurrency 1``: with requests in flight together, whether a repeated request (a debater's
   opening speech is the same request against every opponent) comes from the cache is a race, and
   its ``"cached"`` flag with it (seen: one run of three at concurrency 4 differed there);
4. ``leaderboard build --out board`` in a copy of the tree's ``leaderboard/`` (the committed files
   are never touched), plus the committed ``leaderboard.json`` and ``index.html`` kept raw;
5. the response cache's keys, sorted, and each key's stored value.

Every file written, and each command's argv, exit code, stdout and stderr, is stored under OUT_DIR,
listed with its sha256 in ``MANIFEST.txt``. Normalised to ``<varies>``, and nothing else (two
snapshots of one tree, diffed field by field, differ in exactly these):

* ``"created_at"`` of results files, group summaries and ``score``'s output, and the same value
  shown as "created" on ``view``'s page: the wall clock of the run;
* ``"latency_s"`` of every samples-log line: the measured time of the request (baselines too).

The rebuilt leaderboard is stored raw (its ``created_at`` are the submissions', fixed; it equals the
committed files today). The temporary folder and the tree's path, which differ per run and per tree,
become ``<WORK>`` and ``<REPO>`` where they appear (nowhere today: a guard). Paths recorded relative
to the working folder (``../../work/shared/datasets``) are kept: every snapshot runs in the system
temporary folder.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

VARYING = ("created_at", "latency_s")
_VARYING_RE = re.compile(r'("(?:' + "|".join(VARYING) + r')"\s*:\s*)("[^"]*"|-?[0-9][0-9.eE+-]*|null)')
_CREATED_HTML = re.compile(r"(<dt>created</dt><dd>)[^<]*(</dd>)")
BASELINES = ("random", "majority", "first", "last", "longest", "length", "constant:75")
STUB = r'''
import hashlib, importlib, json, math, re, sys
stub = importlib.import_module(sys.argv[1])
STRENGTH = {"alpha": 1.0, "beta": 0.0, "gamma": -1.0}
def unit(*parts):
    return int.from_bytes(hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).digest()[:8], "big") / 2**64
def respond(req):
    model, msgs = req["model"], req["messages"]
    u = unit(model, msgs)
    if model in STRENGTH:
        return f"[debater {model}] point {int(u * 1000)}: my case, as strongly as I can make it."
    if model == "arena-judge":
        seats = dict(re.findall(r'Side ([12]):\n"""\n\[debater (\S+)\]', str(msgs[-1]["content"])))
        w = 1 if u < 1 / (1 + math.exp(STRENGTH.get(seats.get("2"), 0) - STRENGTH.get(seats.get("1"), 0))) else 2
        return f"side1: [[{8 if w == 1 else 4}]], side2: [[{4 if w == 1 else 8}]], winner: [[{w}]]"
    if u < 0.1:
        return "I would rather not say."
    return f"Score: {1 + int(u * 50) % 5}\nWinner: {('pro', 'tie', 'con')[int(u * 300) % 3]}\nBest: [[{('OG', 'OO', 'CG', 'CO')[int(u * 4000) % 4]}]]"
srv = stub.StubServer(port=int(sys.argv[2]), responder=respond).start()
print(srv.base_url, flush=True)
sys.stdin.read()
srv.stop()
'''  # noqa: E501 - the stub's program text, a raw string kept as written (no backslash continuation)


class Snapshot:
    def __init__(self, repo: Path, out: Path, work: Path) -> None:
        self.repo, self.out, self.work, self.n = repo, out, work, 0
        project = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        module, _, func = project["scripts"]["debench"].partition(":")
        self.boot = f"import sys; sys.argv[0] = 'debench'; from {module} import {func}; sys.exit({func}())"
        meta = work / ".meta"
        info = meta / f"debench-{project['version']}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: debench\nVersion: {project['version']}\n", encoding="utf-8"
        )
        groups = {"console_scripts": project["scripts"], **project.get("entry-points", {})}
        (info / "entry_points.txt").write_text(
            "".join(f"[{g}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()) + "\n" for g, eps in groups.items()),
            encoding="utf-8",
        )
        self.env = {
            **os.environ,
            "PYTHONPATH": f"{meta}{os.pathsep}{repo}",
            "DEBENCH_CACHE_DIR": str(work / "cache"),
            "XDG_CACHE_HOME": str(work / "xdg"),
            "DEBENCH_DATA_DIR": os.environ.get("DEBENCH_DATA_DIR", "/work/shared/datasets"),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "PYTHONDONTWRITEBYTECODE": "1",
            "COLUMNS": "120",
            "TZ": "UTC",
            "NO_COLOR": "1",
        }

    def normalise(self, text: str) -> str:
        text = _VARYING_RE.sub(lambda m: m.group(1) + '"<varies>"', text)
        text = _CREATED_HTML.sub(r"\1<varies>\2", text)
        return text.replace(str(self.work), "<WORK>").replace(str(self.repo), "<REPO>")

    def store(self, rel: str, data: bytes, *, raw: bool = False) -> None:
        if not raw and not rel.startswith(("files/board/", "files/leaderboard/")):  # the build's outputs: raw
            with contextlib.suppress(UnicodeDecodeError):
                data = self.normalise(data.decode("utf-8")).encode("utf-8")
        path = self.out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    def debench(self, *args: str) -> subprocess.CompletedProcess[str]:
        """Run ``debench ARGS`` in the working folder; store argv, exit code, stdout and stderr."""
        self.n, started = self.n + 1, time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-c", self.boot, *args],
            cwd=self.work,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", " ".join(args).replace("--", ""))[:80]
        record = (
            f"argv: debench {' '.join(args)}\nexit code: {proc.returncode}\n--- stdout\n"
            f"{proc.stdout}--- stderr\n{proc.stderr}"
        )
        self.store(f"commands/{self.n:03d}_{name}.txt", record.encode("utf-8"))
        print(f"  [{proc.returncode}] {time.monotonic() - started:5.1f} s  debench {' '.join(args)[:150]}", flush=True)
        return proc

    def find(self, folder: str, pattern: str) -> str | None:
        hits = sorted(p for p in (self.work / folder).rglob("*") if re.fullmatch(pattern, p.name))
        return str(hits[0].relative_to(self.work)) if hits else None

    def cache_keys(self) -> None:
        lines = []
        for db_path in sorted((self.work / "cache").rglob("*.sqlite")):
            with sqlite3.connect(db_path) as db:
                for (table,) in db.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
                ).fetchall():
                    columns = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
                    if "key" in columns:
                        rows = db.execute(
                            f'SELECT key, {"value" if "value" in columns else "NULL"} FROM "{table}" ORDER BY key'
                        ).fetchall()
                        lines += [f"{db_path.relative_to(self.work)} {table} {k} {v}" for k, v in rows]
        self.store("cache_keys.txt", "".join(line + "\n" for line in lines).encode("utf-8"))

    def manifest(self) -> None:
        files = sorted(p for p in self.out.rglob("*") if p.is_file() and p.name not in ("MANIFEST.txt", "TIMING.txt"))
        lines = [f"{p.relative_to(self.out).as_posix()} {hashlib.sha256(p.read_bytes()).hexdigest()}" for p in files]
        (self.out / "MANIFEST.txt").write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def task_names(stdout: str) -> list[str]:
    """The groups, then the tasks in no group, that ``debench tasks`` lists (``name  group  description`` rows, then the
    groups)."""
    head, _, tail = stdout.partition("\ngroups")
    tasks = {line.split()[0] for line in head.splitlines()[1:] if line.strip()}
    groups = [m.group(1) for m in re.finditer(r"^\s+(\S+)\s+\d+ task\(s\): (.*)$", tail, re.MULTILINE)]
    grouped = {t.strip() for m in re.finditer(r"task\(s\): (.*)$", tail, re.MULTILINE) for t in m.group(1).split(",")}
    return groups + sorted(tasks - grouped)


def run_evals(s: Snapshot, base_url: str) -> None:
    for name in task_names(s.debench("tasks").stdout):
        for baseline in BASELINES:
            s.debench(
                "eval", "--task", name, "--model", f"baseline/{baseline}", "--output-dir", "runs/real", "--no-progress"
            )
        s.debench(
            "eval",
            "--task",
            name,
            "--model",
            "baseline/random",
            "--data-source",
            "sample",
            "--output-dir",
            "runs/sample",
            "--no-progress",
        )
    stub = (
        "--model",
        "openai/judge",
        "--api-base",
        base_url,
        "--model-args",
        "max_retries=0",
        "--concurrency",
        "1",
        "--no-progress",
    )
    s.debench("eval", "--task", "ibm_speech_likert", *stub, "--output-dir", "runs/stub")
    s.debench("eval", "--task", "bp_top_team", *stub, "--output-dir", "runs/stub")
    s.debench(
        "eval",
        "--task",
        "debateart_winner",
        "--method",
        "debatrix-f",
        "--limit",
        "4",
        *stub,
        "--output-dir",
        "runs/stub",
    )


def run_tools(s: Snapshot) -> None:
    samples = s.find("runs/stub", r"samples_ibm_speech_likert_[0-9a-f]+\.jsonl")
    if samples:
        s.debench("score", "--task", "ibm_speech_likert", "--predictions", samples, "--output", "tools/scored.json")
    a = s.find("runs/real/baseline__random", r"results_ibm_speech_likert_[0-9a-f]+\.json")
    b = s.find("runs/real/baseline__length", r"results_ibm_speech_likert_[0-9a-f]+\.json")
    if a and b:
        s.debench("compare", a, b, "--n", "2000", "--output", "tools/compare.json")
    for folder, pattern, page in (
        ("runs/real/baseline__random", r"results_bp_top_team_[0-9a-f]+\.json", "bp"),
        ("runs/stub", r"results_ibm_speech_likert_[0-9a-f]+\.json", "ibm"),
    ):
        found = s.find(folder, pattern)
        if found:
            s.debench("view", found, "--output", f"tools/view_{page}.html")


def run_arena(s: Snapshot, base_url: str) -> None:
    models = ",".join(f"openai/{m}" for m in ("alpha", "beta", "gamma"))
    s.debench(
        "arena",
        "--models",
        models,
        "--judge",
        "openai/arena-judge",
        "--api-base",
        base_url,
        "--rounds",
        "2",
        "--model-args",
        "max_retries=0",
        "--concurrency",
        "1",
        "--reason",
        "--output-dir",
        "arena",
        "--no-progress",
    )
    judgments = s.find("arena", r"judgments.*\.jsonl")
    if judgments:
        s.debench(
            "arena",
            "rank",
            "--judgments",
            judgments,
            "--output",
            "tools/rank.json",
            "--plot",
            "tools/rank.svg",
            "--n-boot",
            "200",
            "--n-perm",
            "500",
        )
        s.debench("view", str(Path(judgments).parent), "--output", "tools/view_arena.html")


def run_leaderboard(s: Snapshot) -> None:
    shutil.copytree(s.repo / "leaderboard", s.work / "leaderboard")
    s.debench("leaderboard", "build", "--out", "board")
    for path in (p for p in (s.work / "leaderboard").rglob("*") if p.is_file()):  # keep what the build wrote there
        committed = s.repo / path.relative_to(s.work)
        if committed.is_file() and committed.read_bytes() == path.read_bytes():
            path.unlink()
    for name in ("leaderboard.json", "index.html"):
        s.store(f"committed/{name}", (s.repo / "leaderboard" / name).read_bytes(), raw=True)


def stub_module(repo: Path) -> str:
    """The tree's module that defines ``StubServer``: ``debench.testing.stub_server``, else wherever the tree has moved
    it."""
    known = repo / "debench" / "testing" / "stub_server.py"
    found = (
        [known]
        if known.is_file()
        else sorted(
            p for p in (repo / "debench").rglob("*.py") if "\nclass StubServer" in p.read_text(encoding="utf-8")
        )
    )
    if not found:
        sys.exit(f"no module of {repo / 'debench'} defines StubServer; name it with --stub-module")
    return ".".join(found[0].relative_to(repo).with_suffix("").parts)


def start_stub(s: Snapshot, module: str, port: int) -> tuple[subprocess.Popen[str], str | None]:
    proc = subprocess.Popen(
        [sys.executable, "-c", STUB, module, str(port)],
        cwd=s.work,
        env=s.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    print(f"  stub server {module}: {line or 'did not start'}", flush=True)
    s.store("commands/000_stub_server.txt", f"first line: {line}\n".encode())  # not the module: a refactor may move it
    return proc, (line if line.startswith("http://") else None)


def snapshot(out: Path, repo: Path, module: str | None, port: int) -> int:
    if out.exists() and any(out.iterdir()):
        sys.exit(f"{out} is not empty")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="debench-identity-") as tmp:
        s = Snapshot(repo.resolve(), out.resolve(), Path(tmp).resolve())
        module = module or stub_module(s.repo)
        stub, base_url = start_stub(s, module, port)
        if base_url is None:
            stub.kill()
            sys.exit(f"the stub server ({module}) did not start on 127.0.0.1:{port}; see --stub-module / --stub-port")
        try:
            run_evals(s, base_url)
            run_tools(s)
            run_arena(s, base_url)
        finally:
            assert stub.stdin is not None
            stub.stdin.close()
            stub.wait(timeout=30)
        run_leaderboard(s)
        s.cache_keys()
        for path in sorted(p for p in s.work.rglob("*") if p.is_file()):
            rel = path.relative_to(s.work)
            if rel.parts[0] not in ("cache", "xdg", ".meta"):
                s.store(f"files/{rel.as_posix()}", path.read_bytes())
        s.manifest()
    (out / "TIMING.txt").write_text(
        report := f"{s.n} commands in {time.monotonic() - started:.1f} s\n", encoding="utf-8"
    )
    print(f"snapshot of {repo}: {report.strip()} -> {out / 'MANIFEST.txt'}")
    return 0


def read_manifest(folder: Path) -> dict[str, str]:
    lines = (folder / "MANIFEST.txt").read_text(encoding="utf-8").splitlines()
    return dict(line.rsplit(" ", 1) for line in lines if line)


def shown_lines(path: Path, *, expand: bool) -> list[str]:
    """A file's lines for the diff; with ``expand`` a JSON-lines log one field per line (for display only)."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    if expand and path.suffix == ".jsonl":
        with contextlib.suppress(ValueError):
            return [
                out
                for line in text.splitlines()
                for out in json.dumps(json.loads(line), indent=1, ensure_ascii=False).splitlines()
            ]
    return text.splitlines()


def compare(old: Path, new: Path) -> int:
    a, b = read_manifest(old), read_manifest(new)
    differing = sorted(rel for rel in a.keys() | b.keys() if a.get(rel) != b.get(rel))
    for rel in differing:
        print(f"DIFFERS {rel}" + ("" if rel in a and rel in b else f": only in {old if rel in a else new}"))
        if rel not in a or rel not in b:
            continue
        diff: list[str] = []
        for expand in (True, False):  # the raw lines when only the layout differs
            diff = diff or list(
                difflib.unified_diff(
                    shown_lines(old / rel, expand=expand),
                    shown_lines(new / rel, expand=expand),
                    f"old/{rel}",
                    f"new/{rel}",
                    n=1,
                    lineterm="",
                )
            )
        print("\n".join(line[:300] for line in diff[:20]) + ("\n  ..." if len(diff) > 20 else ""))
    if differing:
        print(f"{len(differing)} of {len(a.keys() | b.keys())} files differ")
        return 1
    print(f"identical: all {len(a)} files")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    snap = sub.add_parser("snapshot", help="run debench's commands on a tree and store their outputs")
    snap.add_argument("out_dir", type=Path)
    snap.add_argument(
        "--repo",
        type=Path,
        default=Path(__file__).resolve().parent.parent,
        help="the tree under test (default: this script's)",
    )
    snap.add_argument(
        "--stub-module",
        default=None,
        help="the tree's module with StubServer (default: debench.testing.stub_server, else found in the tree)",
    )
    snap.add_argument("--stub-port", type=int, default=18731, help="fixed: the api base is part of every cache key")
    cmp = sub.add_parser("compare", help="compare two snapshots; exit 1 if any file differs")
    cmp.add_argument("old_dir", type=Path)
    cmp.add_argument("new_dir", type=Path)
    args = parser.parse_args()
    if args.command == "snapshot":
        return snapshot(args.out_dir, args.repo, args.stub_module, args.stub_port)
    return compare(args.old_dir, args.new_dir)


if __name__ == "__main__":
    sys.exit(main())
