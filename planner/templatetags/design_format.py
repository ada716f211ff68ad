"""Number formats for the Hardware and Designs pages."""

from __future__ import annotations

import math
from typing import Any

from django import template

from planner.designs.labels import any_figure, genomics_applies

register = template.Library()


@register.filter
def millions(value: Any, digits: int = 1) -> str:
    """36_800_000 -> '36.8' (the column header says 'M')."""
    if value is None or value == "":
        return "–"
    return f"{float(value) / 1e6:,.{int(digits)}f}"


@register.filter
def usd(value: Any, digits: int = 0) -> str:
    """1234567.8 -> '$1,234,568'; None (infinite, e.g. cost per genome with no capacity) -> '–'."""
    if value is None or value == "":
        return "–"
    return f"${float(value):,.{int(digits)}f}"


@register.filter
def usd_m(value: Any) -> str:
    if value is None or value == "":
        return "–"
    return f"${float(value) / 1e6:,.2f} M"


@register.filter
def num(value: Any, digits: int = 0) -> str:
    if value is None or value == "":
        return "–"
    return f"{float(value):,.{int(digits)}f}"


@register.filter
def tf(value: Any) -> str:
    """Peak teraflops as the grant report prints them (planner.reports.document.fmt_tf): whole above 10, two
    significant figures below, so a small cluster's 0.32 TF does not read 0."""
    if value is None or value == "":
        return "–"
    v = float(value)
    return f"{v:,.0f}" if abs(v) >= 10 else f"{v:.2g}"


@register.filter
def signed_pct(value: Any, digits: int = 1) -> str:
    """0.704 -> '+70.4%', -0.311 -> '-31.1%' (a relative error, as the docs' tables print it)."""
    if value is None or value == "":
        return "–"
    return f"{100 * float(value):+.{int(digits)}f}%"


@register.filter
def gap_pct(value: Any, digits: int = 2) -> str:
    """0.0048 -> '0.48%' (a MIP gap: two decimals by default)."""
    if value is None or value == "":
        return "–"
    return f"{100 * float(value):.{int(digits)}f}%"


@register.filter
def chance_pct(value: Any, digits: int = 0) -> str:
    """A probability or share as a percentage: 0.9 -> '90%'. Never '100%' for a share below 1 nor '0%' for one
    above 0 (0.999 is not certainty): one more decimal (99.9%), and where even that rounds to the end,
    '> 99.9%' / '< 0.1%'."""
    try:
        p = float(value)
    except (TypeError, ValueError):
        return "–"
    if not math.isfinite(p):
        return "–"
    d = max(int(digits), 0)
    text = f"{100 * p:.{d}f}"
    if 0 < p < 1 and float(text) in (0.0, 100.0):
        finer = f"{100 * p:.{d + 1}f}"
        if float(finer) == 100.0:
            return f"> {100 - 10 ** -(d + 1):.{d + 1}f}%"
        if float(finer) == 0.0:
            return f"< {10 ** -(d + 1):.{d + 1}f}%"
        text = finer
    return f"{text}%"


@register.filter
def short_rule(rule: str) -> str:
    """The head of a cost-model rule ('scaled from ivy-bridge by clock 3.5->2.4 GHz x arch 1.0/1.0'),
    without the cited benchmark and nested rules (shown in full on demand)."""
    head = str(rule).split(" [", 1)[0].split(" (", 1)[0]
    return head


@register.filter
def genomics(rows: Any) -> bool:
    """Whether the per-genome figures apply to these year rows (planner.designs.labels.genomics_applies)."""
    return genomics_applies(rows)


@register.filter
def any_of(rows: Any, keys: str) -> bool:
    """Whether any row has a non-zero value for any of the comma-separated keys (None counts as absent):
    the year table leaves out the genomics or storage rows of a design that has neither."""
    return any_figure(rows, [k.strip() for k in str(keys).split(",")])
