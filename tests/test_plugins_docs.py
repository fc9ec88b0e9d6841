"""docs/plugins.md holds true: its example package (one component of each group, its entry points and
its task file, taken from the page as they are written) installs beside debench, passes
``plugins --check``, and each component does what the page says, checked by hand."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import REPO
from plugin_site import env, install

PAGE = REPO / "docs" / "plugins.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(PAGE.read_text(encoding="utf-8")) if lang == language]


def _example_package(site: Path) -> None:
    """The page's ``acme_examples`` modules and entry points, installed in ``site``."""
    modules = {"acme_examples/__init__.py": ""}
    for body in _blocks("python"):
        first, _, rest = body.partition("\n")
        if first.startswith("# acme_examples/"):
            modules[first.removeprefix("# ")] = rest
    assert len(modules) == 5, sorted(modules)
    entry_points = next(
        tomllib.loads(body)["project"]["entry-points"] for body in _blocks("toml") if "acme_examples" in body
    )
    install(site, "acme-examples", "1.0", modules, entry_points)


@pytest.mark.slow  # four commands, each in a process of its own
def test_the_example_package_of_the_page_works(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _example_package(site)
    environ = env(site, tmp_path / "cache")
    check = run_cli("plugins", "--check", env=environ)
    assert check.returncode == 0, check.stdout + check.stderr
    ours = {line.split()[0] for line in check.stdout.splitlines() if "acme-examples 1.0" in line}
    assert ours == {"lexicon", "balanced_accuracy", "vote-3", "copeland"}

    # the page's task file, its model kind (with a key of its own) and its judge method
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (task := tasks / "dw_balanced.yaml").write_text(
        next(b for b in _blocks("yaml") if "include: debateart_winner" in b)
    )
    proc = run_cli(
        "eval", "--task", "dw_balanced", "--include-path", str(task), "--model", "lexicon/the@tie_margin=3",
        "--method", "vote-3", "--limit", "30", "--output-dir", str(tmp_path / "out"), "--no-progress", env=environ,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    path = Path(proc.stdout.split("results: ")[1].split()[0])
    results = json.loads(path.read_text())
    assert results["model"]["identity"]["kind_args"] == {"tie_margin": 3}
    samples = [json.loads(line) for line in (path.parent / results["samples_file"]).read_text().splitlines()]
    assert all(len(r["steps"]) == 3 and r["status"] == "ok" for r in samples)  # an offline judge always agrees
    recalls = [
        sum(r["prediction"] == c for r in samples if r["target"] == c) / n
        for c in ("pro", "tie", "con")
        if (n := sum(r["target"] == c for r in samples))
    ]
    assert results["metrics"]["balanced_accuracy"]["value"] == pytest.approx(sum(recalls) / len(recalls))
    assert results["versions"]["acme-examples"] == "1.0"

    # the rating, by hand: A beats B on both legs of t1 and loses one leg of t2 to B (the other a tie),
    # so A leads B 2-1 in legs: A beat its one opponent (1), B lost to its one (-1); C met no one
    legs = [("t1", "A", "B", 1), ("t1", "B", "A", 2), ("t2", "A", "B", 2), ("t2", "B", "A", None), ("t2", "C", "C", 1)]
    judgments = tmp_path / "j.jsonl"
    judgments.write_text(
        "".join(json.dumps({"topic": t, "side1": a, "side2": b, "winner": w}) + "\n" for t, a, b, w in legs)
    )
    ranking = tmp_path / "ranking.json"
    proc = run_cli(
        "arena", "rank", "--judgments", str(judgments), "--output", str(ranking), "--rating", "copeland",
        "--n-boot", "200", env=environ,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rated = json.loads(ranking.read_text())["ratings"]["copeland"]
    assert rated["scores"]["A"]["score"] == 1.0 and rated["scores"]["B"]["score"] == -1.0
    assert rated["plugin"]["distribution"] == "acme-examples" and rated["plugin"]["version"] == "1.0"
