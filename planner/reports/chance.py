"""The grant report's "chance the design is enough" section: facts (Django side) and the section (pure).

Facts come from the design's latest evaluation judged on its joint demand paths
(planner.designs.services_paths.design_chance); a design without an ``uncertainty:`` block has no
such section. The latest service-level run, when there is one, adds the cost of confidence.
"""

from __future__ import annotations

from typing import Any

from planner.designs.labels import constraint_label
from planner.reports.document import Paragraph, Section, Table, fmt_pct, fmt_usd

TITLE = "The chance the configuration is enough"


def chance_facts(design: Any, ev: Any, refs: list[dict[str, str]]) -> dict[str, Any] | None:
    from planner.designs.services_paths import design_chance

    chance = design_chance(design, ev) if ev is not None else None
    if not chance or "report" not in chance:
        return None
    key = f"paths-{design.pk}-{ev.pk}"
    if not any(r["key"] == key for r in refs):
        refs.append({"key": key, "kind": "demand paths",
                     "label": f"{chance['n_paths']:,} joint demand paths of design #{design.pk} v{design.version}",
                     "detail": "; ".join(chance["sources"]) + " (docs/uncertainty.md)"})
    out: dict[str, Any] = {"ref": key, "n_paths": chance["n_paths"], "sources": chance["sources"],
                           "years": [{"year": y["year"], "all": y["all_constraints"],
                                      "by": {c["constraint"]: c["probability"] for c in y["constraints"]}}
                                     for y in chance["report"]["years"]]}
    run = (design.optimizer_runs.filter(params__kind="service_level").exclude(result=None)
           .order_by("-created_at").first())
    if run is not None and run.result.get("service_level"):
        sl = run.result["service_level"]
        out["curve"] = [{"alpha": lv["alpha"], "npv_usd": lv["npv_usd"],
                         "out_every_year": lv.get("out_of_sample_every_year")} for lv in sl["curve"]]
        out["run"] = run.pk
    return out


def chance_sections(facts: dict[str, Any], known: Any) -> list[Section]:
    """No section when the design has no demand paths (known: the builder's reference filter)."""
    c = facts.get("chance")
    if not c:
        return []
    ref = known([c["ref"]])
    s = Section("chance", TITLE)
    s.blocks.append(Paragraph("chance", (
        f"The proposed configuration was judged against {c['n_paths']:,} joint demand paths, whole trajectories "
        f"drawn from the projections ({'; '.join(c['sources'])}), so that a year of high demand is followed by "
        "the years that follow it on the same path. The table gives, per year, the share of paths on which "
        "every capacity constraint holds at once, and each constraint's own share."), ref))
    names = sorted({n for y in c["years"] for n in y["by"]})
    rows = [[str(y["year"]), fmt_pct(y["all"])] + [fmt_pct(y["by"].get(n)) for n in names] for y in c["years"]]
    heads = [constraint_label(n) for n in names]  # "Storage (TB)", never the raw key storage_tb
    s.blocks.append(Table("chance", "Share of demand paths on which capacity meets demand",
                          ["year", "all constraints", *heads], rows, ref, [False] + [True] * (1 + len(names))))
    if c.get("curve"):
        s.blocks.append(Paragraph("cost_of_confidence", (
            "Plans bought for a service level (the cheapest plan holding on that share of the paths every year, "
            "solved exactly on one set of paths) were checked on an independent set; the cost of each extra "
            "point of certainty is below."), ref))
        s.blocks.append(Table("cost_of_confidence", "The cost of confidence", ["service level", "net present cost",
                                                                              "holds every year (independent paths)"],
                              [[fmt_pct(lv["alpha"]), fmt_usd(lv["npv_usd"]), fmt_pct(lv["out_every_year"])]
                               for lv in c["curve"]], ref, [True, True, True]))
    return [s]
