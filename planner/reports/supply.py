"""The supply side of the report: the proposed configuration and the purchase schedule (pure: no Django).

One compute-capacity figure runs through the report: the design's core-hours a year at its utilisation
target on the reference core, the figure its evaluation compares with demand (Table "How capacity meets
demand", the design page's KPI). The schedulable core-hours before the target (Minerva's "110 million
core-hours available per year") appear once, in the configuration table, labelled as such.

A compute-only design (no storage in any year, no storage or genomes asked of it) shows no storage,
flash or genome figures: one sentence says why instead of columns of zeros.
"""

from __future__ import annotations

from typing import Any

from planner.designs.labels import genomics_applies
from planner.reports.builder import Builder, check_name
from planner.reports.document import Figure, Section, Series, Table, fmt_int, fmt_num, fmt_pct, fmt_tf, fmt_usd

COMPUTE_ONLY = ("The design buys no storage (a compute-only design), and no year asks it for storage, flash or "
                "genomes, so the report leaves those figures out.")


def compute_only(design: dict[str, Any]) -> bool:
    """No storage in any year of the evaluation, and no storage or genomes demanded of it."""
    years = (design.get("evaluation") or {}).get("years") or []
    return bool(years) and all(
        not (y.get("raw_tb") or y.get("usable_tb") or y.get("flash_tb") or y.get("plannable_tb")
             or y.get("demand_tb") or y.get("genomes_per_day_demand"))
        for y in years)


def capacity_basis(conf: dict[str, Any]) -> str:
    """What the compute-capacity figure counts: "at the 85% utilisation target, on the 3.5 GHz reference core"
    (reports made before the clock was kept: "on the reference core")."""
    ghz = conf.get("reference_core_ghz")
    core = f"the {ghz:g} GHz reference core" if ghz else "the reference core"
    text = f"at the {fmt_pct(conf.get('utilisation_target', 0.85))} utilisation target, on {core}"
    share = conf.get("core_hours_share", 1.0)
    if share < 1.0:
        text += f", on the {fmt_pct(share)} of the cores not running the genomics pipeline"
    return text


def capacity_at_target(conf: dict[str, Any]) -> float | None:
    """The design's compute capacity a year, as its evaluation compares it with demand (None in old facts)."""
    return conf.get("core_hours_at_target_ref")


def configuration_section(b: Builder, title: str) -> Section:
    d = b.f.get("design") or {}
    s = Section("configuration", title)
    conf = d.get("configuration")
    if not conf:
        s.blocks.append(b.para("configuration", "No design is evaluated: create one on the Designs page."))
        return s
    only = compute_only(d)
    ref = b.known([f"eval-{d['evaluation_id']}", f"design-{d['id']}"])
    at_target = capacity_at_target(conf)
    basis = (f" Compute capacity is counted {capacity_basis(conf)}, as demand is: "
             f"{fmt_num(at_target / 1e6, 1)} M core-hours a year in {conf['year']}." if at_target is not None else "")
    storage = (" " + COMPUTE_ONLY if only
               else " The design buys no storage: it plans compute only." if not conf.get("raw_pb")
               else "" if conf.get("fullness_limit") is None
               else f" Usable storage is before the {fmt_pct(conf['fullness_limit'])} fullness limit used for "
                    "planning.")
    s.blocks.append(b.para("configuration", (
        f"Table form of the proposed system once every purchase of {d['name']} is installed ({conf['year']}). "
        f"Schedulable core-hours count {conf['schedulable_hours']:,.0f} hours per core a year (365 days less "
        f"{conf['maintenance_days']:g} maintenance days).{basis}{storage}"), ref))
    rows = [["Peak speed (TF)", fmt_tf(conf["peak_tf"])]]
    if at_target is not None:
        rows.append([f"Core-hours a year {capacity_basis(conf)} (millions)", fmt_num(at_target / 1e6, 1)])
    rows += [
        ["Schedulable core-hours a year, all cores, before the utilisation target (millions)",
         fmt_num(conf["core_hours_available"] / 1e6, 1)],
        ["# of cores", fmt_int(conf["cores"])],
        ["# of nodes", fmt_int(conf["nodes"])],
        ["Amount of memory (TB)", fmt_num(conf["memory_tb"], 0)],
    ]
    if not only:
        rows += [
            ["Total/usable storage (PB)", f"{fmt_num(conf['raw_pb'], 1)}/{fmt_num(conf['usable_pb'], 1)}"],
            ["Flash (TB)", fmt_int(conf["flash_tb"])],
            ["Storage bandwidth (GB/s)", fmt_num(conf["bandwidth_gbps"], 0)],
        ]
    s.blocks.append(Table("configuration", f"Proposed configuration in {conf['year']}", ["system", "value"],
                          rows, ref, [False, True]))
    nodes = d.get("node_types") or []
    if nodes:
        s.blocks.append(Table(
            "node_types", "Node types in the configuration",
            ["node type", "count", "# of sockets", "# of cores", "type of cores", "speed (GHz)", "memory (GB)"],
            [[n["name"], fmt_int(n["count"]), str(n["sockets"]), str(n["cores_per_node"]), n["cpu_model"],
              f"{n['base_clock_ghz']:g}", fmt_int(n["memory_gb"])] for n in nodes], ref,
            [False, True, True, True, False, True, True]))
    return s


def schedule_section(b: Builder, title: str) -> Section:
    d = b.f.get("design") or {}
    s = Section("schedule", title)
    ev = d.get("evaluation")
    if not ev:
        s.blocks.append(b.para("schedule", "No design evaluation is stored."))
        return s
    only = compute_only(d)
    conf = d.get("configuration") or {}
    ref = b.known([f"eval-{d['evaluation_id']}", f"design-{d['id']}"])
    years = ev["years"]
    short = [f"{check_name(c['name'])} in {c['year']} ({fmt_num(c['shortfall'], 0)} {c['unit']} short)"
             for c in ev.get("failures") or []]
    s.blocks.append(b.para("schedule", (
        f"The purchases below are made in the years shown; equipment retires at the end of its service life. "
        f"Capital {fmt_usd(ev['capex_usd'])}, operating {fmt_usd(ev['opex_usd'])}, total "
        f"{fmt_usd(ev['tco_usd'])} over {d['start_year']}-{d['end_year']} (net present cost "
        f"{fmt_usd(ev['npv_usd'])}). "
        + ("Capacity meets demand in every year." if ev.get("feasible") else
           "Capacity falls short in: " + "; ".join(short[:6]) + ("; ..." if len(short) > 6 else "") + ".")
        + (" Compute capacity is counted " + capacity_basis(conf) + "." if conf.get("core_hours_share", 1.0) < 1.0
           else "")
        + (" " + COMPUTE_ONLY if only else "")), ref))
    s.blocks.append(Table(
        "purchases", "Purchases by year", ["year", "item", "count", "note"],
        [[str(p["year"]), p["item"], p["count"], p.get("note", "")] for p in d.get("purchases") or []], ref,
        [False, False, True, False]))
    target = fmt_pct(conf.get("utilisation_target", 0.85))
    columns = ["year", f"compute capacity (M core-h at the {target} target, reference core)",
               "compute demand (M core-h)"]
    genomes = not only and genomics_applies(years)  # a cluster's compute and storage: no genomes columns
    if not only:
        columns += ["plannable storage (TB)", "storage demand (TB)"]
    if genomes:
        columns += ["genomes/day capacity", "genomes/day demand"]
    rows = []
    for y in years:
        row = [str(y["year"]), fmt_num(y["normalised_core_hours_at_target"] / 1e6, 1),
               fmt_num(y["demand_core_hours"] / 1e6, 1)]
        if not only:
            row += [fmt_int(y["plannable_tb"]), fmt_int(y["demand_tb"])]
        if genomes:
            row += [fmt_num(y["genomes_per_day_capacity"], 0), fmt_num(y["genomes_per_day_demand"], 0)]
        row.append("all met" if all(c["passed"] for c in y["checks"]) else
                   "short: " + ", ".join(check_name(c["name"]) for c in y["checks"] if not c["passed"]))
        rows.append(row)
    s.blocks.append(Table("schedule", "How capacity meets demand, year by year", [*columns, "checks"], rows, ref,
                          [False] + [True] * (len(columns) - 1) + [False]))
    s.blocks.extend(cost_tables(years, only, ref, target))
    xs = [y["year"] for y in years]
    s.blocks.append(Figure(
        "capacity_compute", f"Compute capacity at the {target} utilisation target vs demand (reference-core "
        "core-hours)", xs,
        [Series("capacity at target", [y["normalised_core_hours_at_target"] / 1e6 for y in years]),
         Series("demand", [y["demand_core_hours"] / 1e6 for y in years], style="dash")],
        "year", "million core-hours per year", refs=ref))
    if not only:
        s.blocks.append(Figure(
            "capacity_storage", "Plannable online storage vs data to hold (TB)", xs,
            [Series("plannable TB", [y["plannable_tb"] for y in years]),
             Series("demand TB", [y["demand_tb"] for y in years], style="dash")], "year", "TB", refs=ref))
    return s


COST_RULE = ("Annualised cost = each active item's price / its service life (the capital spread over the years it "
             "serves, existing equipment included) + operating; cost per core-hour = annualised cost / core-hours a "
             "year at the utilisation target on all cores ({target} of the schedulable hours, before any conversion "
             "to the reference core){genome}. Capex + opex (Table \"Cost by year\") is what is paid in the year; the "
             "totals and the net present cost add it up.")


def _usd_or_dash(v: float | None) -> str:
    return fmt_usd(v) if v is not None and v != float("inf") else "–"


def cost_tables(years: list[dict[str, Any]], only: bool, ref: list[str], target: str) -> list[Table]:
    """Cost by year, and the unit costs with the annualised cost and the core-hours they divide, so a reader can
    re-make them from the report: a year's capex + opex does not divide into them. Two tables, so that every
    number fits its column on an A4 page."""
    paid = Table(
        "costs", "Cost by year (capital in the year bought; operating = power + support)",
        ["year", "cores", "capex", "power", "support", "opex", "capex + opex"],
        [[str(y["year"]), fmt_int(y["cores"]), fmt_usd(y["capex_usd"]), fmt_usd(y.get("power_usd")),
          fmt_usd(y.get("support_usd")), fmt_usd(y["opex_usd"]), fmt_usd(y.get("tco_usd"))] for y in years],
        ref, [False] + [True] * 6)
    genomes = not only and genomics_applies(years)
    columns = ["year", "annualised cost", "core-hours at target, all cores (M)", "cost per core-hour"]
    if genomes:
        columns += ["genomes/day capacity", "cost per genome"]
    rows = []
    for y in years:
        cpch = y.get("cost_per_core_hour_usd")
        row = [str(y["year"]), _usd_or_dash(y.get("annualised_cost_usd")),
               fmt_num(y["core_hours_at_target"] / 1e6, 1) if y.get("core_hours_at_target") is not None else "–",
               f"${cpch:.4f}" if cpch is not None and cpch != float("inf") else "–"]
        if genomes:
            row += [fmt_num(y.get("genomes_per_day_capacity"), 1), _usd_or_dash(y.get("cost_per_genome_usd"))]
        rows.append(row)
    note = COST_RULE.format(
        target=target, genome="; cost per genome = annualised cost / (genomes a day x 365)" if genomes else "")
    unit = Table("unit_costs", "Cost per core-hour" + (" and per genome" if genomes else "") + " by year", columns,
                 rows, ref, [False] + [True] * (len(columns) - 1), note=note)
    return [paid, unit]


def price_rows(scenario: dict[str, Any], snapshot: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The unit price of every node type and storage system a design owns or buys, with where the catalog says it
    comes from (``price_source``, ``price_date``) and what the catalog row assumes: the inputs of every capex,
    support and annualised figure of the report. From the catalog rows stored with the evaluation."""
    snapshot = snapshot or {}
    nodes = {n["name"]: n for n in snapshot.get("node_types") or []}
    stores = {s["name"]: s for s in snapshot.get("storage_systems") or []}
    items = [*(scenario.get("existing") or []), *(scenario.get("purchases") or [])]
    flash = (scenario.get("constraints") or {}).get("flash_system") or "flash-gss"
    wanted = [("node", i["node_type"]) for i in items if i.get("node_type")]
    wanted += [("storage", i["storage_system"]) for i in items if i.get("storage_system")]
    wanted += [("storage", flash) for i in scenario.get("purchases") or [] if i.get("flash_tb")]
    rows, seen = [], set()
    for kind, name in wanted:
        row = (nodes if kind == "node" else stores).get(name)
        if row is None or (kind, name) in seen:
            continue
        seen.add((kind, name))
        unit = "node" if kind == "node" else f"unit of {fmt_num(row.get('usable_tb'), 0)} TB usable"
        rows.append({"item": name, "unit": unit, "price_usd": row.get("price_usd"),
                     "price_date": row.get("price_date") or "", "price_source": row.get("price_source") or "",
                     "assumptions": row.get("assumptions") or "",
                     "owned": any(i.get("node_type", i.get("storage_system")) == name
                                  for i in scenario.get("existing") or [])})
    return rows


PRICE_NOTE = ("Capex is count x unit price in the year bought; support is a share of that price each year; the "
              "annualised cost spreads it over the service life. A source marked estimate or assumption is the "
              "catalog's own figure, not a quote: replace it (Hardware -> Catalog) before the numbers are staked on.")


def price_table(rows: list[dict[str, Any]], ref: list[str], priced_by_year: bool) -> Table:
    note = PRICE_NOTE + (" This design prices purchases per year (a price index on these catalog prices: the design "
                         "page's Prices section); owned equipment keeps the catalog price." if priced_by_year else "")
    return Table("prices", "Unit prices of the equipment and where they come from",
                 ["item", "per", "price", "price date", "source of the price", "catalog assumptions"],
                 [[r["item"] + (" (owned)" if r.get("owned") else ""), r["unit"], _usd_or_dash(r["price_usd"]),
                   r["price_date"] or "–", r["price_source"] or "not given in the catalog", r["assumptions"] or "–"]
                  for r in rows], ref, [False, True, True, True, False, False], note=note)
