"""The comparison's "chance each design is enough" rows: per design compared, the share of its demand paths on
which every constraint holds at once, by year (planner.designs.services_paths.design_chance)."""

from __future__ import annotations

from typing import Any

# what the row says for a design judged on single demand figures (no ``uncertainty:`` block in its scenario)
NO_PATHS = "no demand paths: judged on one demand figure a year (its scenario has no uncertainty block)"


def chance_compare(items: list[dict[str, Any]]) -> dict[str, Any]:
    """``rows`` (tag, design, {year: share}, note) and the ``years`` any of them has, for _chance_compare.html."""
    from planner.designs.services_paths import design_chance

    rows, years = [], set()
    for it in items:
        ev = it.get("ev")
        chance = design_chance(it["design"], ev) if ev is not None else None
        by_year = ({y["year"]: y["all_constraints"] for y in chance["report"]["years"]}
                   if chance and "report" in chance else {})
        years |= set(by_year)
        if by_year:
            note = ""
        elif chance and "error" in chance:
            note = f"the demand paths cannot be built: {chance['error']}"
        else:
            note = NO_PATHS if ev is not None else "not evaluated"
        rows.append({"tag": it.get("tag", ""), "design": it["design"], "by_year": by_year, "note": note})
    return {"rows": rows, "years": sorted(years)}
