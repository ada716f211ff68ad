"""Build the grant-justification document from gathered facts (pure: plain dicts in, Document out).

``facts`` is what ``planner.reports.gather.gather_facts`` returns (JSON-safe, so a report version
can be rebuilt from its stored facts). ``overrides`` maps a paragraph key to the text a person
wrote in place of the generated one. Missing inputs give a plain sentence saying what to load,
never an invented number.
"""

from __future__ import annotations

from typing import Any

from planner.reports.chance import chance_sections
from planner.reports.document import (
    Document,
    Figure,
    Paragraph,
    Reference,
    Section,
    Series,
    Table,
    cite,
    fmt_int,
    fmt_millions,
    fmt_num,
    fmt_pct,
    fmt_usd,
    fmt_x,
)

SECTION_TITLES = {
    "summary": "Summary",
    "institution": "Institution and user base",
    "workload": "Workload characterisation",
    "storage": "Storage characterisation",
    "projections": "Projected demand",
    "benchmarks": "Pipeline benchmarks",
    "configuration": "Proposed configuration",
    "schedule": "Purchase schedule and how it meets demand",
    "queue_waits": "Queue waits users would see",
    "assumptions": "Assumptions and data sources",
    "appendix": "Appendix: sources of every number",
}
NO_STORAGE = ("No storage scans loaded for this period: the storage tables need a file-system scan taken "
              "during it (load one with `python manage.py ingest_storage_scan`), so this section shows no "
              "storage figures.")
NO_WORKLOAD = ("No workload characterisation is available for this cluster and period: load accounting "
               "logs (`python manage.py ingest_accounting` or the Usage upload page) and the workload "
               "table will be computed from them.")


class _Builder:
    def __init__(self, facts: dict[str, Any], overrides: dict[str, str]) -> None:
        self.f = facts
        self.overrides = overrides
        self.refs: dict[str, Reference] = {}
        for r in facts.get("references", []):
            self.refs[r["key"]] = Reference(**r)

    def para(self, key: str, text: str, refs: list[str] | None = None) -> Paragraph:
        refs = [r for r in (refs or []) if r in self.refs]
        if key in self.overrides and self.overrides[key].strip():
            return Paragraph(key=key, text=self.overrides[key].strip(), refs=refs, edited=True)
        return Paragraph(key=key, text=text, refs=refs)

    def known(self, refs: list[str]) -> list[str]:
        return [r for r in refs if r in self.refs]


def _usage_refs(f: dict[str, Any]) -> list[str]:
    return [f"ingest-{r['id']}" for r in f.get("ingest_runs", [])]


def build_document(facts: dict[str, Any], overrides: dict[str, str] | None = None) -> Document:
    b = _Builder(facts, overrides or {})
    sections = [
        _summary(b), _institution(b), _workload(b), _storage(b), _projections(b), _benchmarks(b),
        _configuration(b), _schedule(b), *_queue_waits(b), *chance_sections(b.f, b.known), _assumptions(b),
        _appendix(b),
    ]
    meta = {k: facts.get(k) for k in ("cluster", "period", "design", "forecast", "generated_at", "institution")}
    inst = (facts.get("institution") or {}).get("name") or "Research computing"
    design = (facts.get("design") or {}).get("name", "")
    doc = Document(
        title=f"{inst}: justification for the proposed research-computing expansion",
        subtitle=f"Cluster {facts.get('cluster') or 'all clusters'}, usage {_period(facts)}; design: {design}",
        meta=meta, sections=sections, references=list(b.refs.values()),
    )
    return doc.number()


CHECK_NAMES = {"core_hours": "compute", "genomes_per_day": "genomes/day", "storage_tb": "online storage",
               "flash_tb": "flash for a week of ingest", "metadata_files": "metadata (files)",
               "bandwidth_gbps": "bandwidth", "budget_usd": "budget"}


def _check(name: str) -> str:
    return CHECK_NAMES.get(name, name.replace("_", " "))


def _period(f: dict[str, Any]) -> str:
    """Months, as usage is counted: "2021-11 to 2026-10"."""
    p = f.get("period") or {}
    return f"{str(p.get('start', '?'))[:7]} to {str(p.get('end', '?'))[:7]}"


# ---- sections ------------------------------------------------------------------------------------
def _summary(b: _Builder) -> Section:
    f, u, d = b.f, b.f.get("usage") or {}, b.f.get("design") or {}
    conf = d.get("configuration") or {}
    ev_ref = [f"eval-{d['evaluation_id']}"] if d.get("evaluation_id") else []
    parts = []
    if u.get("jobs"):
        where = f"the {f['cluster']} cluster" if f.get("cluster") else "all clusters"
        parts.append(
            f"Over {_period(f)} {where} ran {fmt_int(u['jobs'])} jobs and delivered "
            f"{fmt_millions(u['core_hours'])} core-hours to {fmt_int(u['users'])} users in "
            f"{fmt_int(u['projects'])} projects across {fmt_int(u['departments'])} departments"
            + (f", at {fmt_pct(u['utilisation'])} utilisation" if u.get("utilisation") is not None else "")
            + ".")
    if conf:
        parts.append(
            f"The proposed configuration ({d.get('name')}) provides {fmt_int(conf.get('cores'))} cores in "
            f"{fmt_int(conf.get('nodes'))} nodes, {fmt_num(conf.get('peak_tf'), 0)} TF peak, "
            f"{fmt_millions(conf.get('core_hours_available'), 0)} core-hours a year and "
            + (f"{fmt_num(conf.get('raw_pb'), 1)} PB total / {fmt_num(conf.get('usable_pb'), 1)} PB usable storage "
               if conf.get("raw_pb") else "no storage (a compute-only design) ")
            + f"in {conf.get('year')}.")
    best = (b.f.get("benchmarks") or {}).get("comparisons") or []
    if best:
        c = best[-1]
        parts.append(f"Benchmarks of the genomics pipeline show {c['what']} cuts wall time per genome "
                     f"{fmt_x(c['wall_speedup'])}.")
    if d.get("evaluation"):
        ev = d["evaluation"]
        parts.append(f"Over {d.get('start_year')}-{d.get('end_year')} it costs {fmt_usd(ev.get('capex_usd'))} "
                     f"capital and {fmt_usd(ev.get('opex_usd'))} operating; "
                     + ("every yearly demand check passes." if ev.get("feasible")
                        else f"{len(ev.get('failures') or [])} yearly demand checks fall short (see section 8)."))
    text = " ".join(parts) or "No usage or design data is loaded yet."
    return Section("summary", SECTION_TITLES["summary"],
                   [b.para("summary", text, _usage_refs(f)[:3] + ev_ref)])


def _institution(b: _Builder) -> Section:
    f, u = b.f, b.f.get("usage") or {}
    refs = _usage_refs(f)
    s = Section("institution", SECTION_TITLES["institution"])
    if not u.get("jobs"):
        s.blocks.append(b.para("institution", "No accounting logs are loaded for this cluster and period: load "
                               "them with `python manage.py ingest_accounting` or the Usage upload page.", refs))
        return s
    growth = u.get("growth")
    ratio = (growth or {}).get("ratio")
    growth_txt = ""
    if growth and growth.get("ratio") is not None:
        growth_txt = (f" Core-hours in the last {growth['months']} months of the period were "
                      f"{fmt_pct(growth['ratio'] - 1, 0)} {'above' if growth['ratio'] >= 1 else 'below'} the "
                      f"{growth['months']} months before.")
    top = (u.get("by_department") or [])[:1]
    top_txt = (f" The largest department, {top[0]['name']}, used {fmt_pct(top[0]['share'])} of the core-hours."
               if top else "")
    util = (f" Measured against the recorded capacity of the cluster the system was "
            f"{fmt_pct(u['utilisation'])} utilised." if u.get("utilisation") is not None else
            " No cluster capacity is recorded, so utilisation is not stated.")
    s.blocks.append(b.para("institution", (
        f"{(f.get('institution') or {}).get('name', 'The institution')} runs the {f.get('cluster') or 'shared'} "
        f"cluster for {fmt_int(u['users'])} users in {fmt_int(u['projects'])} projects and "
        f"{fmt_int(u['departments'])} departments. Over {_period(f)} ({u.get('months')} months) they ran "
        f"{fmt_int(u['jobs'])} jobs using {fmt_millions(u['core_hours'])} core-hours.{util}{top_txt}{growth_txt}"
    ), refs))
    rows = [
        ["Users", fmt_int(u["users"])], ["Projects", fmt_int(u["projects"])],
        ["Departments", fmt_int(u["departments"])], ["Jobs", fmt_int(u["jobs"])],
        ["Core-hours", fmt_int(u["core_hours"])],
        ["Capacity (core-hours in the period)", fmt_int(u.get("capacity_core_hours"))],
        ["Utilisation", fmt_pct(u.get("utilisation"))],
        ["Growth (last 12 months vs the 12 before)",
         fmt_pct(ratio - 1, 0) if ratio is not None else "–"],
    ]
    s.blocks.append(Table("usage_summary", f"Usage of {f.get('cluster') or 'all clusters'}, {_period(f)}",
                          ["measure", "value"], rows, b.known(refs), [False, True]))
    yearly = u.get("yearly") or []
    if yearly:
        s.blocks.append(Table(
            "usage_yearly", "Usage per calendar year (months are UTC months by job end)",
            ["year", "months", "jobs", "core-hours", "users"],
            [[str(y["year"]), str(y["months"]), fmt_int(y["jobs"]), fmt_int(y["core_hours"]), fmt_int(y["users"])]
             for y in yearly], b.known(refs), [False, True, True, True, True]))
    depts = u.get("by_department") or []
    if depts:
        s.blocks.append(Table(
            "usage_departments", "Usage by department over the period",
            ["department", "users", "jobs", "core-hours", "share"],
            [[d["name"], fmt_int(d["users"]), fmt_int(d["jobs"]), fmt_int(d["core_hours"]), fmt_pct(d["share"], 1)]
             for d in depts], b.known(refs), [False, True, True, True, True]))
    monthly = u.get("monthly") or []
    if monthly:
        series = [Series("core-hours used", [m["core_hours"] for m in monthly])]
        if any(m.get("capacity_core_hours") for m in monthly):
            series.append(Series("capacity", [m.get("capacity_core_hours") for m in monthly], style="step"))
        s.blocks.append(Figure("usage_monthly", "Core-hours per month and the cluster's capacity",
                               [m["month"][:7] for m in monthly], series, "month", "core-hours per month",
                               refs=b.known(refs)))
    return s


def _workload(b: _Builder) -> Section:
    w = b.f.get("workload")
    s = Section("workload", SECTION_TITLES["workload"])
    if not w:
        s.blocks.append(b.para("workload", NO_WORKLOAD))
        return s
    refs = b.known(w.get("refs") or _usage_refs(b.f))
    s.blocks.append(b.para("workload", w.get("narrative") or "The workload of the period, from the accounting "
                           "logs:", refs))
    s.blocks.append(Table("workload", "Workload characterisation (per job)", ["measure", "value"],
                          [[r["label"], r["value"]] for r in w["rows"]], refs, [False, True], w.get("note", "")))
    shape = w.get("shape")
    if shape:
        s.blocks.append(Table("workload_shape", "Workload shape: share of jobs and of core-hours",
                              ["class of job", "jobs", "core-hours"],
                              [[r["label"], fmt_pct(r["jobs_share"]), fmt_pct(r["core_hours_share"])]
                               for r in shape], refs, [False, True, True]))
        s.blocks.append(Figure("workload_shape", "Share of jobs and of core-hours by class of job",
                               [r["label"] for r in shape],
                               [Series("jobs", [r["jobs_share"] * 100 for r in shape], style="bar"),
                                Series("core-hours", [r["core_hours_share"] * 100 for r in shape], style="bar")],
                               "", "% of the period's total", kind="bar", refs=refs))
    return s


def _storage(b: _Builder) -> Section:
    st = b.f.get("storage")
    s = Section("storage", SECTION_TITLES["storage"])
    if not st:
        s.blocks.append(b.para("storage", NO_STORAGE))
        return s
    refs = b.known(st.get("refs") or [])
    s.blocks.append(b.para("storage", st.get("narrative") or "File-system scan summary:", refs))
    s.blocks.append(Table("storage", "Storage characterisation", ["measure", "value"],
                          [[r["label"], r["value"]] for r in st["rows"]], refs, [False, True]))
    if st.get("deciles"):
        s.blocks.append(Table("storage_deciles", "Distribution of file sizes (deciles)",
                              ["decile", "max size", "files"],
                              [[r["decile"], r["max_size"], r["files"]] for r in st["deciles"]], refs,
                              [False, True, True]))
        s.blocks.append(Figure("storage_deciles", "Files per decile of file size",
                               [r["decile"] for r in st["deciles"]],
                               [Series("files", [r["files_n"] for r in st["deciles"]], style="bar")],
                               "decile", "files", kind="bar", refs=refs))
    if st.get("small_file_facts"):
        s.blocks.append(b.para("storage_small_files", " ".join(st["small_file_facts"]), refs))
    return s


def _projections(b: _Builder) -> Section:
    s = Section("projections", SECTION_TITLES["projections"])
    fc, plan = b.f.get("forecast"), b.f.get("sequencer_plan")
    if not fc and not plan:
        s.blocks.append(b.para("projections", "No forecast or sequencer plan is stored: fit one on the Forecasts "
                               "page or with `python manage.py forecast`."))
        return s
    if fc:
        ref = [f"fit-{fc['id']}"]
        full = [y for y in fc["yearly"] if y.get("complete", True)] or fc["yearly"]
        years = [y for y in full if y.get("periods_forecast")]
        last = years[-1] if years else full[-1]
        s.blocks.append(b.para("projections", (
            f"Demand was projected from {fc['history_from'][:7]} to {fc['through'][:7]} of {fc['series']} with the "
            f"{fc['family']} growth model ({fc['selection']}: {fc['reason']}). By {last['year']} the median "
            f"projection is {fmt_millions(last['median'])} {fc['year_units']} (80% interval "
            f"{fmt_millions(last['p10'])} to {fmt_millions(last['p90'])})."), ref))
        s.blocks.append(Table(
            "forecast", f"Projected {fc['year_units']} (median and 80% interval)",
            ["year", "observed months", "forecast months", "p10", "median", "p90"],
            [[str(y["year"]), str(y.get("periods_observed", "")), str(y.get("periods_forecast", "")),
              fmt_int(y["p10"]), fmt_int(y["median"]), fmt_int(y["p90"])] for y in fc["yearly"]],
            ref, [False, True, True, True, True, True],
            "Incomplete years sum the months observed or forecast in them."))
        s.blocks.append(Figure(
            "forecast", f"Projected compute demand: {fc['series']}, whole years (median with 80% interval)",
            [y["year"] for y in full],
            [Series("median", [y["median"] for y in full], [y["p10"] for y in full],
                    [y["p90"] for y in full])], "year", fc["year_units"], refs=ref))
    if plan:
        ref = [f"plan-{plan['plan']}"]
        ys = plan["years"]
        s.blocks.append(b.para("sequencer_plan", (
            f"The sequencer plan '{plan['name']}' (version {plan['version']}) grows from "
            f"{_count(ys[0]['instruments_end'], 'instrument')} at the end of {ys[0]['year']} to "
            f"{_count(ys[-1]['instruments_end'])} in {ys[-1]['year']}, when it needs "
            f"{fmt_millions(ys[-1]['core_hours_ref'])} core-hours a year ({plan['convention']}) and holds "
            f"{fmt_num(ys[-1]['stored_pb'], 2)} PB."), ref))
        s.blocks.append(Table(
            "sequencer_plan", f"Sequencer plan: {plan['name']} v{plan['version']}",
            ["year", "instruments", "samples", "genomes/day (peak)", "core-hours (reference core)",
             "new TB", "stored PB"],
            [[str(y["year"]), fmt_num(y["instruments_end"], 1), fmt_int(y["samples"]),
              fmt_num(y["genomes_per_day_peak"], 1), fmt_int(y["core_hours_ref"]), fmt_int(y["new_tb"]),
              fmt_num(y["stored_pb"], 2)] for y in ys], ref, [False] + [True] * 6))
        s.blocks.append(Figure(
            "sequencer_storage", "Projected genomics data held (PB), from the sequencer plan",
            [y["year"] for y in ys], [Series("stored PB", [y["stored_pb"] for y in ys])], "year", "PB",
            refs=ref))
    return s


def _benchmarks(b: _Builder) -> Section:
    bm = b.f.get("benchmarks") or {}
    s = Section("benchmarks", SECTION_TITLES["benchmarks"])
    rows = bm.get("rows") or []
    if not rows:
        s.blocks.append(b.para("benchmarks", "No per-genome benchmarks of the design's pipeline are in the "
                               "hardware catalog: import them with `python manage.py import_catalog`."))
        return s
    refs = list(dict.fromkeys(r["ref"] for r in rows if r.get("ref")))
    comps = bm.get("comparisons") or []
    sentences = [
        f"{c['what'].capitalize()}: wall hours per genome {fmt_int(c['wall_before'])} to {fmt_int(c['wall_after'])} "
        f"({fmt_x(c['wall_speedup'])}), CPU hours {fmt_int(c['cpu_before'])} to {fmt_int(c['cpu_after'])} "
        f"({fmt_x(c['cpu_speedup'])})." for c in comps
    ]
    s.blocks.append(b.para("benchmarks", (
        f"The {bm.get('pipeline')} pipeline was benchmarked per genome on each candidate node type and storage "
        f"system. " + " ".join(sentences)
        + " CPU efficiency (CPU hours / wall hours) shows how long IO-starved jobs hold cores without using them."),
        b.known(refs)))
    s.blocks.append(Table(
        "benchmarks", f"Per-genome cost of {bm.get('pipeline')} by node type and storage",
        ["node type", "storage", "CPU hours", "wall hours", "CPU efficiency", "how obtained"],
        [[r["node_type"], r["storage"], fmt_int(r["cpu_hours"]), fmt_int(r["wall_hours"]),
          fmt_num(r["cpu_efficiency"], 2), r["rule"]] for r in rows], b.known(refs),
        [False, False, True, True, True, False]))
    if comps:
        s.blocks.append(Table(
            "speedups", "Speedups per genome", ["change", "wall before", "wall after", "wall speedup",
                                                "CPU before", "CPU after", "CPU speedup"],
            [[c["what"], fmt_int(c["wall_before"]), fmt_int(c["wall_after"]), fmt_x(c["wall_speedup"]),
              fmt_int(c["cpu_before"]), fmt_int(c["cpu_after"]), fmt_x(c["cpu_speedup"])] for c in comps],
            b.known(refs), [False] + [True] * 6))
    measured = [r for r in rows if r.get("measured")]
    s.blocks.append(Figure(
        "benchmarks", "CPU and wall hours per genome by configuration",
        [f"{r['node_type']} / {r['storage']}" for r in measured],
        [Series("CPU hours", [r["cpu_hours"] for r in measured], style="bar"),
         Series("wall hours", [r["wall_hours"] for r in measured], style="bar")],
        "", "hours per genome", kind="bar", refs=b.known(refs)))
    return s


def _count(n: float, noun: str = "") -> str:
    """An instrument count as the plan's table shows it (one decimal, a whole number without it), with ``noun``."""
    count = fmt_num(n, 1).removesuffix(".0")
    return f"{count} {noun}{'' if count == '1' else 's'}" if noun else count


def _configuration(b: _Builder) -> Section:
    d = b.f.get("design") or {}
    s = Section("configuration", SECTION_TITLES["configuration"])
    conf = d.get("configuration")
    if not conf:
        s.blocks.append(b.para("configuration", "No design is evaluated: create one on the Designs page."))
        return s
    ref = b.known([f"eval-{d['evaluation_id']}", f"design-{d['id']}"])
    s.blocks.append(b.para("configuration", (
        f"Table form of the proposed system once every purchase of {d['name']} is installed ({conf['year']}). "
        f"Core-hours available per year count {conf['schedulable_hours']:,.0f} schedulable hours per core "
        f"(365 days less {conf['maintenance_days']:g} maintenance days)"
        + (". The design buys no storage: it plans compute only." if not conf.get("raw_pb")
           else "." if conf.get("fullness_limit") is None
           else f"; usable storage is before the {fmt_pct(conf['fullness_limit'])} fullness limit used for planning.")),
        ref))
    rows = [
        ["Peak speed (TF)", fmt_num(conf["peak_tf"], 0)],
        ["# of core hours avail/year (millions)", fmt_num(conf["core_hours_available"] / 1e6, 1)],
        ["# of cores", fmt_int(conf["cores"])],
        ["# of nodes", fmt_int(conf["nodes"])],
        ["Amount of memory (TB)", fmt_num(conf["memory_tb"], 0)],
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


def _schedule(b: _Builder) -> Section:
    d = b.f.get("design") or {}
    s = Section("schedule", SECTION_TITLES["schedule"])
    ev = d.get("evaluation")
    if not ev:
        s.blocks.append(b.para("schedule", "No design evaluation is stored."))
        return s
    ref = b.known([f"eval-{d['evaluation_id']}", f"design-{d['id']}"])
    years = ev["years"]
    short = [f"{_check(c['name'])} in {c['year']} ({fmt_num(c['shortfall'], 0)} {c['unit']} short)"
             for c in ev.get("failures") or []]
    s.blocks.append(b.para("schedule", (
        f"The purchases below are made in the years shown; equipment retires at the end of its service life. "
        f"Capital {fmt_usd(ev['capex_usd'])}, operating {fmt_usd(ev['opex_usd'])}, total "
        f"{fmt_usd(ev['tco_usd'])} over {d['start_year']}-{d['end_year']} (net present cost "
        f"{fmt_usd(ev['npv_usd'])}). "
        + ("Capacity meets demand in every year." if ev.get("feasible") else
           "Capacity falls short in: " + "; ".join(short[:6]) + ("; ..." if len(short) > 6 else "") + ".")), ref))
    s.blocks.append(Table(
        "purchases", "Purchases by year", ["year", "item", "count", "note"],
        [[str(p["year"]), p["item"], p["count"], p.get("note", "")] for p in d.get("purchases") or []], ref,
        [False, False, True, False]))
    s.blocks.append(Table(
        "schedule", "How capacity meets demand, year by year",
        ["year", "compute capacity (M core-h, ref. core, at target)", "compute demand (M core-h)",
         "plannable storage (TB)", "storage demand (TB)", "genomes/day capacity", "genomes/day demand", "checks"],
        [[str(y["year"]), fmt_num(y["normalised_core_hours_at_target"] / 1e6, 1),
          fmt_num(y["demand_core_hours"] / 1e6, 1), fmt_int(y["plannable_tb"]), fmt_int(y["demand_tb"]),
          fmt_num(y["genomes_per_day_capacity"], 0), fmt_num(y["genomes_per_day_demand"], 0),
          "all met" if all(c["passed"] for c in y["checks"]) else
          "short: " + ", ".join(_check(c["name"]) for c in y["checks"] if not c["passed"])]
         for y in years], ref, [False] + [True] * 6 + [False]))
    s.blocks.append(Table(
        "costs", "Cost by year (capital in the year bought; operating = power + support)",
        ["year", "cores", "capex", "power", "support", "opex", "capex + opex", "cost per core-hour"],
        [[str(y["year"]), fmt_int(y["cores"]), fmt_usd(y["capex_usd"]), fmt_usd(y.get("power_usd")),
          fmt_usd(y.get("support_usd")), fmt_usd(y["opex_usd"]), fmt_usd(y.get("tco_usd")),
          f"${y['cost_per_core_hour_usd']:.4f}" if y.get("cost_per_core_hour_usd") is not None else "–"]
         for y in years], ref, [False] + [True] * 7))
    xs = [y["year"] for y in years]
    s.blocks.append(Figure(
        "capacity_compute", "Compute capacity at the utilisation target vs demand (reference-core core-hours)", xs,
        [Series("capacity at target", [y["normalised_core_hours_at_target"] / 1e6 for y in years]),
         Series("demand", [y["demand_core_hours"] / 1e6 for y in years], style="dash")],
        "year", "million core-hours per year", refs=ref))
    s.blocks.append(Figure(
        "capacity_storage", "Plannable online storage vs data to hold (TB)", xs,
        [Series("plannable TB", [y["plannable_tb"] for y in years]),
         Series("demand TB", [y["demand_tb"] for y in years], style="dash")], "year", "TB", refs=ref))
    return s


def _queue_waits(b: _Builder) -> list[Section]:
    """Waits from the design's latest scheduling replay (planner.replay); no section when not replayed."""
    q = b.f.get("queue_waits")
    if not q:
        return []
    s = Section("queue_waits", SECTION_TITLES["queue_waits"])
    ref = b.known([q["ref"]])
    s.blocks.append(b.para("queue_waits", (
        f"The {fmt_int(q['jobs'])} jobs {q['cluster']} ran from {q['base_period'][0]} to {q['base_period'][1]} were "
        "scheduled again, job by job (EASY backfilling), on today's cluster and on the proposed nodes of each year, "
        "their arrival rate scaled by the projected growth to that year. A job runs on one node when it fits one, "
        "on whole nodes when wider; the 95th-percentile wait is given at the median growth, with P10-P90 growth "
        "in brackets."), ref))

    def hrs(v: float | None) -> str:
        return "-" if v is None else fmt_num(v, 2)

    rows = [[r["label"], r["machine"], fmt_x(r["load"]), hrs(r["mean_h"]),
             hrs(r["p95_h"]) + (f" ({hrs(r['p95_lo_h'])}-{hrs(r['p95_hi_h'])})" if r["p95_lo_h"] is not None else ""),
             fmt_pct(r["utilisation"])] for r in q["rows"]]
    s.blocks.append(Table("queue_waits", "Queue waits per year (hours)",
                          ["year", "machine", "load", "mean wait", "p95 wait", "utilisation"], rows, ref,
                          [False, False, True, True, True, True]))
    return [s]


def _assumptions(b: _Builder) -> Section:
    d = b.f.get("design") or {}
    s = Section("assumptions", SECTION_TITLES["assumptions"])
    items = list(d.get("assumptions") or [])
    s.blocks.append(b.para("assumptions", " ".join(items) if items else "No design assumptions are recorded.",
                           b.known([f"design-{d.get('id')}"])))
    rules = d.get("derivations") or {}
    if rules:
        s.blocks.append(Table("derivations", "How each per-genome figure of the design was obtained",
                              ["node type / storage", "rule"], [[k, v] for k, v in rules.items()],
                              b.known([f"eval-{d.get('evaluation_id')}"]), [False, False]))
    s.blocks.append(b.para("data_sources", (
        "Usage comes from the scheduler's accounting logs loaded by the ingest runs listed in the appendix; "
        "forecasts, sequencer plans and design evaluations are the stored versions named there, so every "
        "number can be traced and re-made.")))
    return s


def _appendix(b: _Builder) -> Section:
    rows = [[r.key, r.kind, r.label, r.detail] for r in b.refs.values()]
    return Section("appendix", SECTION_TITLES["appendix"], [
        Table("references", "Sources cited in this report", ["key", "kind", "source", "detail"], rows, [],
              [False, False, False, False], "Each table and figure names the keys of its sources."),
    ])


__all__ = ["SECTION_TITLES", "NO_STORAGE", "NO_WORKLOAD", "build_document", "cite"]
