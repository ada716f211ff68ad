"""The comparison page's sentence saying why the cheaper-per-genome design wins, with the numbers (pure core:
year dicts of planner.designs.capacity.DesignEvaluation.to_dict() in, a sentence out)."""

from __future__ import annotations

from typing import Any

from planner.designs.labels import genomics_applies

SAME = 0.05  # per-genome hours within 5 % of each other are "the same": no clause claims one holds fewer


def _relative(small: float, big: float, word: str) -> str:
    """'2.5x fewer' for a large difference, '8% fewer' for a small one (never '1.0x fewer')."""
    ratio = big / small
    return f"{ratio:.1f}x {word}" if ratio >= 1.1 else f"{1 - small / big:.0%} {word}"


def _differ(a: float, b: float) -> bool:
    return abs(a - b) > SAME * max(abs(a), abs(b)) and f"{a:,.0f}" != f"{b:,.0f}"


def _tiers(w: dict[str, Any], lo: dict[str, Any]) -> str:
    a, b = w.get("pipeline_storage"), lo.get("pipeline_storage")
    if not a and not b:
        return ""
    return f" (on {a or b})" if a == b or not (a and b) else f" (on {a} and on {b})"


def hours_clause(w: dict[str, Any], lo: dict[str, Any]) -> str | None:
    """Why the winner's genomes cost less, from wall core-hours held per genome: fewer hours when they differ
    ("because each genome holds ..."), else the year's cost over the genomes it sustains."""
    wh, lh = w.get("wall_core_hours_per_genome"), lo.get("wall_core_hours_per_genome")
    if not wh or not lh:
        return None
    cost = ""
    if w.get("annualised_cost_usd") and lo.get("annualised_cost_usd"):
        cost = (f"the year's cost spread over the genomes it sustains: ${w['annualised_cost_usd']:,.0f} a year "
                f"(annualised capex + opex) against ${lo['annualised_cost_usd']:,.0f}")
    if not _differ(wh, lh):
        same = f"each genome holds the same {wh:,.0f} wall core-hours{_tiers(w, lo)}"
        return f"{same}, so the difference is {cost}" if cost else same
    held = (f"each genome holds {wh:,.0f} wall core-hours on {w.get('pipeline_storage') or 'its tier'} "
            f"instead of {lh:,.0f} on {lo.get('pipeline_storage') or 'its tier'}")
    if wh < lh:
        return f"because {held} ({_relative(wh, lh, 'fewer')})"
    more = f"even though {held} ({_relative(lh, wh, 'more')})"
    return f"{more}: the difference is {cost}" if cost else more


def why_sentence(designs: list[tuple[str, list[dict[str, Any]]]]) -> str | None:
    """A generated sentence saying why the cheaper-per-genome design wins, with the numbers.

    ``designs``: (name, year dicts) of each evaluated design. Compares them at the year both have their
    largest genomes/day capacity in common (the first year where the best design peaks), on cost per genome,
    genomes/day and wall core-hours; a figure that is the same in both is not given as a reason.
    """
    if len(designs) < 2 or not any(genomics_applies(ys) for _, ys in designs):
        return None  # designs that neither check nor ask for genomes get no per-genome reasons (labels rule)

    def at(years: list[dict[str, Any]], year: int) -> dict[str, Any]:
        return next(y for y in years if y["year"] == year)

    common = set.intersection(*({y["year"] for y in ys} for _, ys in designs))
    if not common:
        return None
    best = max(designs, key=lambda d: max((at(d[1], y)["genomes_per_day_capacity"] or 0) for y in common))
    year = max(sorted(common), key=lambda y: at(best[1], y)["genomes_per_day_capacity"] or 0)
    ranked = sorted(designs, key=lambda d: at(d[1], year)["cost_per_genome_usd"] or float("inf"))
    (win, wy), (lose, ly) = ranked[0], ranked[-1]
    w, lo = at(wy, year), at(ly, year)
    if not w["cost_per_genome_usd"] or w["cost_per_genome_usd"] == float("inf"):
        return None
    if (not lo["cost_per_genome_usd"] or lo["cost_per_genome_usd"] == float("inf")
            or not lo["genomes_per_day_capacity"]):  # the loser serves no genomes
        why = ""
        if lo.get("turnaround_hours") and w.get("turnaround_hours"):
            why = (f": each genome would take {lo['turnaround_hours']:,.0f} h there against "
                   f"{w['turnaround_hours']:,.0f} h")
            wh, lh = w.get("wall_core_hours_per_genome"), lo.get("wall_core_hours_per_genome")
            if wh and lh and _differ(wh, lh):
                why += (f", holding {lh:,.0f} core-hours on {lo['pipeline_storage']} instead of "
                        f"{wh:,.0f} on {w['pipeline_storage']}")
        return (f"In {year}, {win} analyses {w['genomes_per_day_capacity']:,.0f} genomes/day at "
                f"${w['cost_per_genome_usd']:,.0f} each; {lose} cannot meet the genomes demand{why}.")
    wc, lc = w["cost_per_genome_usd"], lo["cost_per_genome_usd"]
    same = abs(wc - lc) <= 0.01 * lc  # within a cent in the dollar: neither wins, so no reason is given
    if same:
        head = f"In {year}, {win} and {lose} analyse a genome for about the same (${wc:,.0f} against ${lc:,.0f})"
        clause = None
    else:
        head = (f"In {year}, {win} analyses a genome for ${wc:,.0f} against ${lc:,.0f} for {lose} "
                f"({_relative(wc, lc, 'cheaper')})")
        clause = hours_clause(w, lo)
    sustains = f"{win} sustains" if same else "it sustains"
    parts = [head, f"{sustains} {w['genomes_per_day_capacity']:,.0f} genomes/day against "
                   f"{lo['genomes_per_day_capacity']:,.0f} with {w['cores']:,} cores against {lo['cores']:,}"]
    return "; ".join(parts) + (", " + clause if clause else "") + "."
