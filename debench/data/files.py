"""Reading the files of published data sets; every problem is a one-line DataError naming the
file (and the column or key)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from debench.errors import DataError


def read_csv(path: Path, required: list[str], dtype: dict[str, Any] | None = None) -> pd.DataFrame:
    try:
        df = pd.read_csv(path, dtype=dtype)
    except FileNotFoundError:
        raise DataError("file not found", path=str(path)) from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise DataError(f"not a readable CSV ({exc.__class__.__name__})", path=str(path)) from None
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise DataError(f"missing column(s) {', '.join(missing)}", path=str(path), field=missing[0])
    return df


def read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError("file not found", path=str(path)) from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise DataError(f"not readable YAML ({exc.__class__.__name__})", path=str(path)) from None


def read_panelbench_debate(directory: Path, doc_id: str) -> tuple[dict[str, Any], list[Any], Path, Path]:
    """Debatrix PanelBench layout: ``motion/<id>.yml`` (a mapping with ``motion``) and
    ``speech/<id>.yml`` (a list of speeches). Returns (motion, speeches, motion path, speech path)."""
    mpath = directory / "motion" / f"{doc_id}.yml"
    spath = directory / "speech" / f"{doc_id}.yml"
    motion = read_yaml(mpath)
    if not isinstance(motion, dict) or "motion" not in motion:
        raise DataError("missing key", path=str(mpath), field="motion")
    raw = read_yaml(spath)
    if not isinstance(raw, list):
        raise DataError("expected a list of speeches", path=str(spath))
    return motion, raw, mpath, spath


def panelbench_info_slide(motion: dict[str, Any]) -> str:
    """The info slide, or "" where the file says there is none ("No information")."""
    info = str(motion.get("info_slide") or "")
    return "" if info.strip().lower().rstrip(".") in ("", "no information") else info
