"""The report's "Projected demand" section (pure: no Django).

The forecast and the sequencer plan are those the design links (its scenario's
``uncertainty.forecast.core_fit`` / ``.sequencer_plan``) unless the person chose others; ``role`` in
their facts says which: "design" (the design's demand comes from it) or "context" (shown beside the
design, not part of its demand), so a reader never takes another cluster's forecast for the demand the
design was sized to. Sentences quote years inside the design's horizon, or say plainly that the
projection runs past it or misses it.
"""

from __future__ import annotations

from typing import Any

from forecasts.demand.engine.labels import plain_method
from planner.reports.builder import Builder
from planner.reports.document import Figure, Section, Series, Table, fmt_figs, fmt_int, fmt_millions, fmt_num

CONTEXT = "context, not part of this design's demand"
NO_PROJECTIONS = ("The design links no stored forecast or sequencer plan: its demand is the yearly figures in its "
                  "scenario (the compute demand column of the purchase schedule). Choose a forecast or a plan on "
                  "the New report page to show one here as context.")


def _horizon(b: Builder) -> tuple[int, int] | None:
    d = b.f.get("design") or {}
    if d.get("start_year") is None or d.get("end_year") is None:
        return None
    return int(d["start_year"]), int(d["end_year"])


def _role_sentence(b: Builder, role: str | None, what: str) -> str:
    if role == "design":
        return f"The design's demand comes from this {what}, which its scenario links. "
    if role == "context":
        linked = [w for w, k in (("forecast", "forecast"), ("sequencer plan", "sequencer_plan"))
                  if (b.f.get(k) or {}).get("role") == "design"]
        source = f"the {' and the '.join(linked)} it links" if linked else "the yearly figures in its scenario"
        return f"Shown as {CONTEXT}: the design does not link this {what}, and its demand is {source}. "
    return ""


def _caption(role: str | None, caption: str) -> str:
    return f"{caption} ({CONTEXT})" if role == "context" else caption


def _forecast_sentence(fc: dict[str, Any], horizon: tuple[int, int] | None) -> str:
    full = [y for y in fc["yearly"] if y.get("complete", True)] or fc["yearly"]
    future = [y for y in full if y.get("periods_forecast")] or full[-1:]
    units = fc["year_units"]

    observed = [y for y in full if not y.get("periods_forecast")]

    def quote(y: dict[str, Any]) -> str:
        return (f"the median projection is {fmt_millions(y['median'])} {units} (80% interval "
                f"{fmt_millions(y['p10'])} to {fmt_millions(y['p90'])}){_growth(observed, y)}")

    if horizon is None:
        return f"By {future[-1]['year']} {quote(future[-1])}."
    lo, hi = horizon
    inside = [y for y in future if lo <= y["year"] <= hi]
    first, last = future[0]["year"], future[-1]["year"]
    if not inside:
        when = "ends before the design's first year" if last < lo else "starts after the design's last year"
        return (f"Its projection ({first}-{last}) {when} ({lo}-{hi}), so it gives no demand figure for the design's "
                f"years; by {last} {quote(future[-1])}.")
    text = f"By {inside[-1]['year']}, within the design's years ({lo}-{hi}), {quote(inside[-1])}."
    if last > hi:
        text += f" The forecast runs on to {last}, past the design's last year."
    elif inside[-1]["year"] < hi:
        text += f" The forecast ends in {inside[-1]['year']}, before the design's last year ({hi})."
    return text


def _growth(observed: list[dict[str, Any]], y: dict[str, Any]) -> str:
    """The growth rate a director would quote, said from the table's own figures: ", x% a year compounded on
    2019's observed 20.8 M" (nothing without a whole observed year before ``y``, or with a zero)."""
    base = next((o for o in reversed(observed) if o["year"] < y["year"]), None)
    if base is None or not base.get("median") or not y.get("median") or base["median"] <= 0 or y["median"] <= 0:
        return ""
    rate = (y["median"] / base["median"]) ** (1 / (y["year"] - base["year"])) - 1
    return (f", {rate * 100:+.0f}% a year compounded on {base['year']}'s observed {fmt_millions(base['median'])} "
            "(the table below)")


def _plan_sentence(plan: dict[str, Any], horizon: tuple[int, int] | None) -> str:
    ys = plan["years"]
    convention = plan.get("convention_text") or plan["convention"]
    inside = [y for y in ys if horizon is None or horizon[0] <= y["year"] <= horizon[1]]
    text = (f"The sequencer plan '{plan['name']}' (version {plan['version']}) grows from "
            f"{_count(ys[0]['instruments_end'], 'instrument')} at the end of {ys[0]['year']} to "
            f"{_count(ys[-1]['instruments_end'])} in {ys[-1]['year']}.")
    if not inside:
        assert horizon is not None
        return text + (f" Its years ({ys[0]['year']}-{ys[-1]['year']}) miss the design's ({horizon[0]}-{horizon[1]}), "
                       f"so it gives no demand figure for them ({convention}).")
    y = inside[-1]
    text += (f" In {y['year']}" + (", the design's last year it covers," if horizon else "") + " it needs "
             f"{fmt_millions(y['core_hours_ref'])} core-hours a year ({convention}) and holds "
             f"{fmt_num(y['stored_pb'], 2)} PB.")
    if horizon and ys[-1]["year"] > horizon[1]:
        text += f" The plan runs on to {ys[-1]['year']}, past the design's last year ({horizon[1]})."
    return text


def projections_section(b: Builder, title: str) -> Section:
    s = Section("projections", title)
    fc, plan = b.f.get("forecast"), b.f.get("sequencer_plan")
    if not fc and not plan:
        s.blocks.append(b.para("projections", NO_PROJECTIONS))
        return s
    horizon = _horizon(b)
    if fc:
        ref = [f"fit-{fc['id']}"]
        role = fc.get("role")
        full = [y for y in fc["yearly"] if y.get("complete", True)] or fc["yearly"]
        s.blocks.append(b.para("projections", (
            _role_sentence(b, role, "forecast")
            + f"Demand was projected from {fc['series']}, observed {fc['history_from'][:7]} to {fc['through'][:7]}, "
            f"with the {fc['family']} forecast ({fc['selection']}: {plain_method(fc['reason'])}). "
            + _forecast_sentence(fc, horizon)), ref))
        s.blocks.append(Table(
            "forecast", _caption(role, f"Projected {fc['year_units']} (median and 80% interval)"),
            ["year", "observed months", "forecast months", "p10", "median", "p90"],
            [[str(y["year"]), str(y.get("periods_observed", "")), str(y.get("periods_forecast", "")),
              fmt_int(y["p10"]), fmt_int(y["median"]), fmt_int(y["p90"])] for y in fc["yearly"]],
            ref, [False, True, True, True, True, True],
            "Incomplete years sum the months observed or forecast in them."))
        s.blocks.append(Figure(
            "forecast", _caption(role, f"Projected compute demand: {fc['series']}, whole years (median with 80% "
                                       "interval)"),
            [y["year"] for y in full],
            [Series("median", [y["median"] for y in full], [y["p10"] for y in full],
                    [y["p90"] for y in full])], "year", fc["year_units"], refs=ref))
    if plan:
        ref = [f"plan-{plan['plan']}"]
        role = plan.get("role")
        ys = plan["years"]
        s.blocks.append(b.para("sequencer_plan", _role_sentence(b, role, "sequencer plan")
                               + _plan_sentence(plan, horizon), ref))
        s.blocks.append(Table(
            "sequencer_plan", _caption(role, f"Sequencer plan: {plan['name']} v{plan['version']}"),
            ["year", "instruments (end of year)", "samples", "genomes/day (peak month)", "core-hours (reference core)",
             "new TB", "stored PB"],
            [[str(y["year"]), fmt_num(y["instruments_end"], 1), fmt_int(y["samples"]),
              fmt_figs(y["genomes_per_day_peak"]), fmt_int(y["core_hours_ref"]), fmt_int(y["new_tb"]),
              fmt_num(y["stored_pb"], 2)] for y in ys], ref, [False] + [True] * 6))
        s.blocks.append(Figure(
            "sequencer_storage", _caption(role, "Projected genomics data held (PB), from the sequencer plan"),
            [y["year"] for y in ys], [Series("stored PB", [y["stored_pb"] for y in ys])], "year", "PB",
            refs=ref))
    return s


def _count(n: float, noun: str = "") -> str:
    """An instrument count as the plan's table shows it (one decimal, a whole number without it), with ``noun``."""
    count = fmt_num(n, 1).removesuffix(".0")
    return f"{count} {noun}{'' if count == '1' else 's'}" if noun else count
