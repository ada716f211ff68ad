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


# What an entered growth rate's projection (family "growth_rate") did instead of the statistical settings
ENTERED_RATE = {
    "family_override": "the entered growth rate (the history is too short for a fitted model)",
    "log": "not modelled (entered growth rate)",
    "backtest_origins": "none: an entered rate is not backtested",
}


def fit_inputs(options: dict[str, Any], *, seed: Any = None, periods: str = "months",
               family: str | None = None) -> list[tuple[str, str]]:
    """(label, value) rows of a fit's settings, the known ones first in a fixed order, then any other;
    ``periods``: the series' periods in words (the horizon counts them: months, quarters, half-years, years).
    ``family``: what the fit made (its ``family``), when known: a growth rate is only used on a history too
    short for the statistical forecast, so a projection ("growth_rate") reads as one, and a rate entered for a
    history long enough to fit is said to be unused."""
    merged = dict(options)
    if seed is not None and merged.get("seed") is None:
        merged["seed"] = seed
    rows = [(LABELS[k], _value(k, merged[k], periods)) for k in LABELS if k in merged]
    rate = merged.get("growth_rate")
    if family == "growth_rate":
        rows = [(label, ENTERED_RATE.get(k, text)) for (label, text), k in zip(
            rows, [k for k in LABELS if k in merged], strict=True)]
    elif family is not None and rate is not None:
        rows = [(label, f"{rate:g} % per year, not used: the history was long enough for the statistical forecast"
                 if label == LABELS["growth_rate"] else text) for label, text in rows]
    rows += [(k.replace("_", " ").capitalize(), _value(k, v)) for k, v in merged.items() if k not in LABELS]
    return rows
