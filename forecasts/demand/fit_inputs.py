"""A fit's stored settings as a person reads them (the fit page's Trace section). Pure: no Django."""

from __future__ import annotations

from typing import Any

# setting -> (what it is, how a value reads); None is "the default" and says which
LABELS: dict[str, str] = {
    "horizon": "Horizon",
    "family_override": "Model",
    "log": "Scale",
    "growth_rate": "Growth rate",
    "backtest_origins": "Backtest origins",
    "through_requested": "History through",
    "seed": "Seed",
}


def _value(key: str, value: Any, periods: str = "months") -> str:
    if key == "horizon":
        return f"{value} {periods}" if value is not None else "the default"
    if key == "family_override":
        return f"pinned to {value}" if value else "automatic (the combination of members that backtest well)"
    if key == "log":
        return {True: "log (forced)", False: "original (forced)"}.get(value, "automatic (chosen from the history)")
    if key == "growth_rate":
        return f"{value:g} % per year (a projection at that rate, no statistical fit)" if value is not None \
            else "none (statistical forecast)"
    if key == "backtest_origins":
        return f"{value} rolling origins" if value is not None else "the default"
    if key == "through_requested":
        return str(value)[:7] if value else "the last whole month"
    return "—" if value is None else str(value)


def fit_inputs(options: dict[str, Any], *, seed: Any = None, periods: str = "months") -> list[tuple[str, str]]:
    """(label, value) rows of a fit's settings, the known ones first in a fixed order, then any other;
    ``periods``: the series' periods in words (the horizon counts them: months, quarters, half-years, years)."""
    merged = dict(options)
    if seed is not None and merged.get("seed") is None:
        merged["seed"] = seed
    rows = [(LABELS[k], _value(k, merged[k], periods)) for k in LABELS if k in merged]
    rows += [(k.replace("_", " ").capitalize(), _value(k, v)) for k, v in merged.items() if k not in LABELS]
    return rows
