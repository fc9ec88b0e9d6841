"""The one reader of every file a user points debench at (``debench.core.user_files``, issue 43):
regular files only, a ceiling per kind of file and per line, a byte-order mark accepted, YAML
without aliases or a key given twice, JSON without a key given twice, nesting bounded; each
problem one line naming the file (and the line and the field)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from debench.core.ceilings import MAX_NESTING
from debench.core.errors import DataError, UserError
from debench.core.user_files import (
    DATA_FILE,
    TASK_FILE,
    Kind,
    load_json,
    parse_json,
    parse_yaml,
    read_bytes,
    read_lines,
    read_text,
)


def _laughs(levels: int = 7, width: int = 10) -> str:
    """Aliases of aliases: ``width ** levels`` values from a few hundred bytes."""
    lines = [f"l0: &l0 [{', '.join(['x'] * width)}]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def _one_line(exc: pytest.ExceptionInfo[UserError]) -> str:
    text = str(exc.value)
    assert "\n" not in text
    return text


@pytest.mark.parametrize("special", ["fifo", "socket", "folder", "/dev/zero"])
def test_only_regular_files_are_read(tmp_path: Path, special: str) -> None:
    """A FIFO is refused without blocking, a device without reading it (``--task /dev/zero`` read
    gigabytes), a socket and a folder too; the message says what the path is."""
    path = tmp_path / "x.yaml"
    if special == "fifo":
        os.mkfifo(path)
    elif special == "folder":
        path.mkdir()
    elif special == "socket":
        path = tmp_path / "s.sock"
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        sock.close()
    else:
        path = Path(special)
    for read in (read_text, read_bytes, lambda p, k: list(read_lines(p, k))):
        with pytest.raises(UserError) as exc:
            read(path, TASK_FILE)
        line = _one_line(exc)
        assert line.startswith(f"{path}: the task file is ") and line.endswith(", not a regular file")
    name = {"fifo": "a FIFO", "socket": "a socket", "folder": "a folder", "/dev/zero": "a character device"}[special]
    assert name in line


def test_a_file_past_its_ceiling_is_refused_before_it_is_read(tmp_path: Path) -> None:
    small = Kind("topics file", 100)
    path = tmp_path / "t.txt"
    path.write_text("x" * 101)
    with pytest.raises(UserError) as exc:
        read_text(path, small)
    assert _one_line(exc) == (
        f"{path}: the topics file is 101 bytes, above the ceiling of 100 bytes for a topics file "
        "(docs/errors.md, Ceilings)"
    )
    path.write_text("x" * 100)
    assert read_text(path, small) == "x" * 100


def test_a_line_past_its_ceiling_is_refused_and_lines_keep_their_offsets(tmp_path: Path) -> None:
    kind = Kind("log", 10_000, max_line=20)
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\xef\xbb\xbfab\n" + b"c" * 10 + b"\nd")
    lines = list(read_lines(path, kind))
    assert [(ln.number, ln.offset, ln.data) for ln in lines] == [
        (1, 3, b"ab\n"),
        (2, 6, b"c" * 10 + b"\n"),
        (3, 17, b"d"),
    ]
    path.write_bytes(b"ab\n" + b"c" * 30 + b"\n")
    with pytest.raises(UserError) as exc:
        list(read_lines(path, kind))
    assert _one_line(exc) == f"{path}: line 2 is longer than 20 bytes, the ceiling of one line"


def test_missing_unreadable_and_not_utf8(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="data file not found"):
        read_bytes(tmp_path / "nowhere.csv", DATA_FILE)
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"ok\ncaf\xe9\n")
    with pytest.raises(UserError) as exc:
        read_text(path, TASK_FILE)
    assert _one_line(exc) == f"{path}: line 2: not UTF-8 text"
    path.write_bytes(b"\xef\xbb\xbfname: x\n")  # a byte-order mark: accepted, left out
    assert read_text(path, TASK_FILE) == "name: x\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_laughs(), "field 'l1.0': the value anchored (&) at line 1 is used again through an alias (*)"),
        ("a: &x {b: 1}\nc: *x\n", "field 'c': the value anchored (&) at line 1 is used again through an alias (*)"),
        ("- &s text\n- *s\n", "field '1': the value anchored (&) at line 1"),
        (
            "name: a\nother: 1\nname: b\n",
            "field 'name': line 3: the key is given twice in one mapping (first at line 1)",
        ),
        ("parser:\n  type: int\n  type: str\n", "field 'parser.type': line 3: the key is given twice"),
        ("{a: 1, a: 2}\n", "field 'a': line 1: the key is given twice"),
        ("a: " + "[" * (MAX_NESTING + 5) + "]" * (MAX_NESTING + 5), f"nested more than {MAX_NESTING} levels deep"),
        ("a: " + "[" * 100_000 + "]" * 100_000, "invalid YAML at line 1"),
        ("a: !!python/object/apply:os.system [true]\n", "invalid YAML at line 1: could not determine a constructor"),
    ],
)
def test_yaml_without_aliases_duplicate_keys_or_deep_nesting(text: str, message: str) -> None:
    with pytest.raises(UserError) as exc:
        parse_yaml(text, "my.yaml")
    line = _one_line(exc)
    assert line.startswith("my.yaml: ") and message in line, line


def test_yaml_that_is_plain_data_reads_as_safe_load_reads_it() -> None:
    import yaml

    text = "a: 1\nb: [x, {c: 2.5, d: null}]\n'1': one\n1: int one\nmerged:\n  <<: {k: v}\n  own: 3\n"
    assert parse_yaml(text, "f.yaml") == yaml.safe_load(text)
    assert parse_yaml("", "f.yaml") is None
    deep = "a: " + "[" * MAX_NESTING + "]" * MAX_NESTING
    assert parse_yaml(deep, "f.yaml") == yaml.safe_load(deep)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"winner": null, "winner": 1}', "field 'winner': line 4: the key is given twice in one object"),
        (b'{"a": {"b": 1, "b": 1}}', "field 'b': line 4: the key is given twice in one object"),
        (b"[" * 200_000 + b"]" * 200_000, f"line 4: nested more than {MAX_NESTING} levels deep"),
        (b'{"a": 1', "line 4: not valid JSON (EOF while parsing an object at column 7)"),
        (b'{"a": "\xff"}', "line 4: not UTF-8 text"),
    ],
)
def test_json_without_duplicate_keys_or_deep_nesting(data: bytes, message: str) -> None:
    with pytest.raises(UserError) as exc:
        parse_json(data, "j.jsonl", at="line 4")
    assert _one_line(exc) == f"j.jsonl: {message}"


def test_a_whole_json_file_names_the_line_of_its_problem(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(b'\xef\xbb\xbf{\n "a": 1,\n "a": 2\n}\n')
    with pytest.raises(UserError) as exc:
        load_json(path, TASK_FILE)
    assert _one_line(exc) == f"{path}: field 'a': line 3: the key is given twice in one object"
    path.write_bytes(b'\xef\xbb\xbf{"a": [1, 2.5, null, "\xc3\xa9"]}')
    assert load_json(path, TASK_FILE) == {"a": [1, 2.5, None, "é"]}
