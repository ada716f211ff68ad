"""The design page's "chance it is enough" section, as an inclusion tag (one include in detail.html)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.inclusion_tag("designs/_chance.html", takes_context=True)
def demand_chance(context: Any, design: Any, ev: Any) -> dict[str, Any]:
    from planner.designs.charts_paths import FANS, demand_fan
    from planner.designs.services_paths import design_chance

    out: dict[str, Any] = {"design": design, "ev": ev, "request": context.get("request"),
                           "csrf_token": context.get("csrf_token")}
    if ev is None:
        return out
    chance = design_chance(design, ev)
    out["chance"] = chance
    if chance and "report" in chance:
        years = chance["report"]["years"]
        names = [c["constraint"] for c in years[0]["constraints"]] if years else []
        out["constraints"] = names
        out["rows"] = [{"year": y["year"], "all": y["all_constraints"],
                        "by": {c["constraint"]: c for c in y["constraints"]}} for y in years]
        out["fans"] = [{"id": f"fig-fan-{c}", "fig": demand_fan(ev.result, chance["quantiles"], c)}
                       for c in names if c in FANS]
    return out


@register.filter
def points_at_90(n_paths: Any) -> str:
    """A share counted on ``n_paths`` paths is within about this many points at 90 % (one binomial standard error,
    100 x sqrt(0.9 x 0.1 / n), docs/uncertainty.md): '1' on 1,000 paths, '1.3' on the demo's 500."""
    try:
        n = int(n_paths)
    except (TypeError, ValueError):
        return ""
    if n <= 0:
        return ""
    se = 100 * (0.09 / n) ** 0.5
    return f"{se:.0f}" if se >= 10 or round(se, 1) == round(se) else f"{se:.1f}"


@register.filter
def get(mapping: Any, key: Any) -> Any:
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.filter
def make_list_levels(value: str) -> list[str]:
    return value.split()


@register.inclusion_tag("designs/_confidence.html")
def confidence_curve(service_level: dict[str, Any], run: Any = None) -> dict[str, Any]:
    from planner.designs.charts_paths import cost_of_confidence

    curve = service_level.get("curve") or []
    years = sorted(service_level.get("in_sample", {}))
    return {"sl": service_level, "curve": curve, "years": years, "fig": cost_of_confidence(curve), "run": run}
