"""Queue-wait sections (issue 18) for the design page and the comparison.

The designs' views come before replay in the data flow, so their templates pull the sections in
with these tags: ``{% load replay_tags %}{% queue_waits design %}`` and ``{% queue_waits_compare designs %}``.
"""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.inclusion_tag("replay/_queue_waits.html", takes_context=True)
def queue_waits(context: Any, design: Any) -> dict[str, Any]:
    from planner.replay.views import design_section

    return design_section(design) | {"request": context.get("request"), "csrf_token": context.get("csrf_token")}


@register.inclusion_tag("replay/_queue_waits_compare.html")
def queue_waits_compare(designs: list[Any]) -> dict[str, Any]:
    from planner.replay.views import compare_section

    return compare_section(list(designs))


@register.filter
def hours(seconds: Any) -> str:
    """Seconds of wait -> '1.25 h' (or '12 s' / '4.0 min' when short); None -> '–'."""
    if seconds is None or seconds == "":
        return "–"
    s = float(seconds)
    if s < 60:
        return f"{s:.0f} s"
    if s < 3600:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:,.2f} h"
