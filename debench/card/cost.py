"""Cost: tokens and dollars per judged document of the judge's ``eval`` run (its ``usage``).

Dollars are the fresh answers' (an answer from the response cache cost nothing this time) over the
documents they answered; unknown (null) when the provider's price is not known."""

from __future__ import annotations

from debench.card.evidence import Evidence
from debench.card.model import CostRow


def cost_row(ev: Evidence) -> CostRow:
    r = ev.results
    usage, n = r.usage, r.n_samples
    fresh = n - usage.n_cached
    usd = usage.cost_usd / fresh if usage.cost_usd is not None and fresh > 0 else None
    if r.model.kind == "baseline":
        usd = 0.0  # it calls no model
    per_doc = f"{usage.total_tokens / n:,.0f} tokens per document" if n else "no document"
    price = f", ${usd:.5f} per document" if usd is not None else ", price unknown"
    return CostRow(
        task=ev.task.name,
        status="info" if n else "not_measured",
        reason=per_doc + (price if n else ""),
        n_samples=n,
        prompt_tokens_per_doc=usage.prompt_tokens / n if n else None,
        completion_tokens_per_doc=usage.completion_tokens / n if n else None,
        usd_per_doc=usd,
    )
