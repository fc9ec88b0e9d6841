"""Prompt templates are refused within their time and size bounds whatever they do
(``debench.task.bounded_render``): a plain template renders in the process, any other in a worker
process with an address-space limit that is killed past the time bound."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from jinja2 import UndefinedError

from debench.task import bounded_render, prompt_sandbox
from debench.task.bounded_render import render
from debench.task.prompt_sandbox import MAX_OUTPUT_CHARS, TemplateBoundError, plain

REPO = Path(__file__).resolve().parent.parent

ISSUE_CASES = {
    # issue 42: each of these ended in a MemoryError traceback, built 16x the output bound, or ran 46 s
    "doubled with ~ twelve times from 1 MB": (
        "{% set ns = namespace(s='x' * 1000000) %}" + "{% set ns.s = ns.s ~ ns.s %}" * 12 + "{{ ns.s|length }}",
        "joins more than 2000000 characters or items with ~",
    ),
    "a + a": ("{% set a = 'x' * 2000000 %}{% set a = a + a %}{% set a = a + a %}{{ a|length }}", "with +"),
    "b ~ b": ("{% set b = 'x' * 2000000 %}{% set b = b ~ b %}{% set b = b ~ b %}{{ b|length }}", "with ~"),
    "nested loops that print nothing": (
        "{% set t = 'x' * 40000 %}{% for a in t %}{% for b in t %}{% endfor %}{% endfor %}done",
        "takes more than 5 s to render",
    ),
    "a list keeping 3 GB": (
        "{% set ns = namespace(l=[]) %}{% for i in range(3000) %}{% set ns.l = ns.l + ['x' * 1000000 ~ i] %}"
        "{% endfor %}{{ ns.l|length }}",
        "needs more than 1024 MB of memory",
    ),
}


@pytest.mark.slow  # a command per case, one of them stopped at the 5 s bound (~25 s in all)
@pytest.mark.parametrize("case", list(ISSUE_CASES))
def test_every_case_of_the_issue_is_one_line_under_a_3_gb_address_space(case: str, tmp_path: Path) -> None:
    template, says = ISSUE_CASES[case]
    task = (REPO / "tasks" / "ibm_speech_likert.yaml").read_text(encoding="utf-8")
    hostile = tmp_path / "hostile.yaml"
    hostile.write_text(task.replace("user: |", "user: |\n    " + template, 1), encoding="utf-8")
    command = [sys.executable, "-m", "debench.cli", "eval", "--task", str(hostile), "--model", "baseline/random",
               "--limit", "2", "--data-source", "sample", "--no-progress",
               "--output-dir", str(tmp_path / "out")]  # fmt: skip
    proc = subprocess.run(
        ["bash", "-c", 'ulimit -v 3000000 && exec "$@"', "bash", *command],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("debench: error: "), proc.stderr[-2000:]
    assert "field 'prompt.user'" in lines[0] and says in lines[0]


def test_the_shipped_templates_are_plain_and_loops_are_not() -> None:
    from debench.run.task_lookup import load_task, task_names

    for name in task_names():
        task, _ = load_task(name)
        assert all(plain(t) for t in (task.prompt.system, task.prompt.user) if t), name
    for text in ("{% for s in speeches %}{{ s.text }}{% endfor %}", "{% set x = a %}", "{{ a.strip() }}",
                 "{{ a|map('upper') }}", "{{ [a, a] }}", "{{ a ** 2 }}", "{% macro m() %}{% endmacro %}"):  # fmt: skip
        assert not plain(text), text
    assert plain("{% if a in ['x', 'y'] %}{{ a|trim|upper ~ '!' }}{% else %}{{ n * 2 + 1 }}{% endif %}")


def test_the_worker_renders_loops_and_raises_the_templates_own_errors() -> None:
    assert (
        render("{% for s in speeches %}[{{ s.text }}]{% endfor %}", {"speeches": [{"text": "a"}, {"text": "b"}]})
        == "[a][b]"
    )
    with pytest.raises(UndefinedError, match="'topc' is undefined"):
        render("{% for i in range(2) %}{{ topc }}{% endfor %}", {})
    bounded_render._WORKER.close()  # a worker that is gone is started again
    assert render("{% set x = 'ok' %}{{ x }}", {}) == "ok"


LOOP_SIZES = st.one_of(
    st.tuples(st.integers(1, 46), st.integers(1, 3)),  # at most ~10^5 steps: renders
    st.tuples(st.integers(40_000, 60_000), st.just(2)),  # at least 1.6 x 10^9 steps: past any time bound
)


@settings(max_examples=20)
@given(
    start=st.integers(1, 2_000_000),
    joins=st.lists(st.sampled_from(["~", "+"]), max_size=4),
    loops=st.none() | LOOP_SIZES,
    prints=st.booleans(),
)
def test_a_template_is_rendered_within_its_bounds_or_refused_in_one_line(
    start: int, joins: list[str], loops: tuple[int, int] | None, prints: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Texts doubled with ``~`` or ``+`` and loops over texts, nested: a template that builds more
        than the size bound is refused though it never prints what it built, one whose loops take more
        than 10^9 steps is refused at the (here 0.3 s) time bound, before it reaches what follows them, and
    every other one renders."""
    monkeypatch.setattr(prompt_sandbox, "MAX_RENDER_S", 0.3)
    monkeypatch.setattr(bounded_render, "GRACE_S", 0.2)
    body = f"{{% set ns = namespace(s='x' * {start}) %}}"
    body += "".join(f"{{% set ns.s = ns.s {op} ns.s %}}" for op in joins)
    steps = 0
    if loops is not None:
        size, depth = loops
        steps = size**depth
        body += (
            f"{{% set t = 'y' * {size} %}}"
            + "{% for c in t %}" * depth
            + ("." if prints else "")
            + "{% endfor %}" * depth
        )
    if steps > 10**9:  # never reached by a rendering stopped at its time bound: one that ran its loops
        body += "{{ past_the_loops }}"  # to the end (and checked its clock only then) raises UndefinedError
    body += "{{ ns.s|length }}"
    built = start * 2 ** len(joins)
    event(f"built past the bound: {built > MAX_OUTPUT_CHARS}, steps past 10^9: {steps > 10**9}")
    try:
        out = render(body, {})
    except TemplateBoundError as exc:
        assert "\n" not in str(exc)
        assert built > MAX_OUTPUT_CHARS or steps > 10**9 or (prints and steps > MAX_OUTPUT_CHARS), str(exc)
        if built > MAX_OUTPUT_CHARS:  # refused at the join that crosses the bound, before the loops
            crossing = next(op for n, op in enumerate(joins) if start * 2 ** (n + 1) > MAX_OUTPUT_CHARS)
            assert f"with {crossing}" in str(exc), str(exc)
    else:
        assert built <= MAX_OUTPUT_CHARS and steps < 10**9 and len(out) <= MAX_OUTPUT_CHARS
