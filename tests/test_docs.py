"""The README and the pages of ``docs/`` hold together: every relative link leads to a file that
exists and every ``#anchor`` to a heading that exists (GitHub's slugs), the README stays short and
names every page, and the index of ``docs/`` lists them all."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from conftest import REPO

README = REPO / "README.md"
DOCS = REPO / "docs"
PAGES = sorted(DOCS.glob("*.md"))
MAX_README_LINES = 300

FENCED = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$", re.MULTILINE)


def _prose(text: str) -> str:
    """The text without code blocks and code spans (a ``[x](y)`` in code is not a link)."""
    return INLINE_CODE.sub("", FENCED.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: links and emphasis reduced to their text, lower case, every
    character that is not a letter, digit, space, hyphen or underscore removed, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings (a repeated slug gets -1, -2, … as on GitHub)."""
    seen: dict[str, int] = {}
    out = set()
    for m in HEADING.finditer(FENCED.sub("", path.read_text(encoding="utf-8"))):
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def links(path: Path) -> list[str]:
    return [m.group(1) for m in LINK.finditer(_prose(path.read_text(encoding="utf-8")))]


def broken_links(path: Path) -> list[str]:
    problems = []
    for target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / unquote(file_part)).resolve() if file_part else path
        if not dest.exists():
            problems.append(f"{target}: no file {dest}")
            continue
        if anchor:
            if dest.suffix != ".md":
                problems.append(f"{target}: an anchor into a file that is not Markdown")
            elif unquote(anchor) not in anchors(dest):
                problems.append(f"{target}: no heading of {dest.name} has the anchor #{anchor}")
    return problems


@pytest.mark.parametrize("path", [README, *PAGES], ids=lambda p: str(p.relative_to(REPO)))
def test_links_lead_to_files_and_headings_that_exist(path: Path) -> None:
    assert broken_links(path) == []


def test_the_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines; reference text goes in a docs/ page"


@pytest.mark.parametrize("index", [README, DOCS / "README.md"], ids=["README.md", "docs/README.md"])
def test_every_docs_page_is_listed(index: Path) -> None:
    assert len(links(index)) >= len(PAGES) - 1, "is the link pattern still right?"
    linked = {
        (index.parent / t.partition("#")[0]).resolve() for t in links(index) if not t.startswith(("http:", "https:"))
    }
    unlisted = [p.name for p in PAGES if p.resolve() not in linked and p != index]
    assert unlisted == [], f"{index.relative_to(REPO)} does not link to {unlisted}"


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    """A missing file, a missing heading, and a link hidden in code (not a link) are told apart."""
    (tmp_path / "other.md").write_text(
        "# Other page\n\n## Runs are resumable, cached and polite\n\n## `--batch` (the batch API)\n"
    )
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[a](other.md#runs-are-resumable-cached-and-polite) [b](other.md#--batch-the-batch-api) [c](#page)\n"
        "[d](missing.md) [e](other.md#no-such-heading) `[f](missing-in-code.md)`\n\n```\n[g](missing-in-block.md)\n"
        "```\n[h](https://example.org/x.md)\n"
    )
    assert broken_links(page) == [
        f"missing.md: no file {tmp_path / 'missing.md'}",
        "other.md#no-such-heading: no heading of other.md has the anchor #no-such-heading",
    ]


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("Judge methods: direct and Debatrix", "judge-methods-direct-and-debatrix"),
        ("2026-11-26: `arena rank` (`python -m benchmarks.arena`)", "2026-11-26-arena-rank-python--m-benchmarksarena"),
        ("Scale: how a million judgments rank in seconds", "scale-how-a-million-judgments-rank-in-seconds"),
        ("Judge consistency (`--repeats`)", "judge-consistency---repeats"),
        ("Parse failures, per task", "parse-failures-per-task"),
        ("`gguf/`: any GGUF file through the embedded llama.cpp", "gguf-any-gguf-file-through-the-embedded-llamacpp"),
    ],
)
def test_slugs_are_githubs(heading: str, anchor: str) -> None:
    """The anchors GitHub gives these headings (the pages link to them)."""
    assert slug(heading) == anchor
