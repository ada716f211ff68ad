"""Build the grant-justification document from gathered facts (pure: plain dicts in, Document out).

``facts`` is what ``planner.reports.gather.gather_facts`` returns (JSON-safe, so a report version
can be rebuilt from its stored facts). ``overrides`` maps a paragraph key to the text a person
wrote in place of the generated one. Missing inputs give a plain sentence saying what to load,
never an invented number.
"""

from __future__ import annotations

from typing import Any

from planner.reports.builder import Builder, period_text, usage_refs
from planner.reports.chance import chance_sections
from planner.reports.document import (
    Document,
    Figure,
    Section,
    Series,
    Table,
    cite,
    fmt_int,
    fmt_millions,
    fmt_num,
    fmt_pct,
    fmt_tf,
    fmt_usd,
    fmt_x,
)
from planner.reports.projections import projections_section
from planner.reports.supply import (
    capacity_at_target,
    capacity_basis,
    compute_only,
    configuration_section,
    price_table,
    schedule_section,
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


def build_document(facts: dict[str, Any], overrides: dict[str, str] | None = None) -> Document:
    b = Builder(facts, overrides or {})
    sections = [
        _summary(b), _institution(b), _workload(b), _storage(b),
        projections_section(b, SECTION_TITLES["projections"]), _benchmarks(b),
        configuration_section(b, SECTION_TITLES["configuration"]), schedule_section(b, SECTION_TITLES["schedule"]),
        *_queue_waits(b), *chance_sections(b.f, b.known), _assumptions(b),
        _appendix(b),
    ]
    meta = {k: facts.get(k) for k in ("cluster", "period", "design", "forecast", "generated_at", "institution")}
    inst = (facts.get("institution") or {}).get("name") or "Research computing"
    design = (facts.get("design") or {}).get("name", "")
    doc = Document(
        title=f"{inst}: justification for the proposed research-computing expansion",
        subtitle=f"Cluster {facts.get('cluster') or 'all clusters'}, usage {period_text(facts)}; design: {design}",
        meta=meta, sections=sections, references=list(b.refs.values()),
    )
    return doc.number()


# ---- sections ------------------------------------------------------------------------------------
def _summary(b: Builder) -> Section:
    f, u, d = b.f, b.f.get("usage") or {}, b.f.get("design") or {}
    conf = d.get("configuration") or {}
    ev_ref = [f"eval-{d['evaluation_id']}"] if d.get("evaluation_id") else []
    parts = []
    if u.get("jobs"):
        where = f"the {f['cluster']} cluster" if f.get("cluster") else "all clusters"
        parts.append(
            f"Over {period_text(f)} {where} ran {fmt_int(u['jobs'])} jobs and delivered "
            f"{fmt_millions(u['core_hours'])} core-hours to {_count(u['users'], 'user')} in "
            f"{_count(u['projects'], 'project')} across {_count(u['departments'], 'department')}"
            + (f", at {fmt_pct(u['utilisation'])} utilisation" if u.get("utilisation") is not None else "")
            + ".")
    if conf:
        at_target = capacity_at_target(conf)
        compute = (f"{fmt_millions(at_target)} core-hours a year {capacity_basis(conf)}" if at_target is not None
                   else f"{fmt_millions(conf.get('core_hours_available'))} schedulable core-hours a year (before "
                        "the utilisation target)")
        parts.append(
            f"The proposed configuration ({d.get('name')}) provides {fmt_int(conf.get('cores'))} cores in "
            f"{fmt_int(conf.get('nodes'))} nodes, {fmt_tf(conf.get('peak_tf'))} TF peak, {compute}, and "
            + (f"{fmt_num(conf.get('raw_pb'), 1)} PB total / {fmt_num(conf.get('usable_pb'), 1)} PB usable storage "
               if conf.get("raw_pb") else "no storage (a compute-only design) " if compute_only(d) else "no storage ")
            + f"in {conf.get('year')}.")
    c = _own_hardware_comparison(b.f)
    if c:
        parts.append(f"Benchmarks of the genomics pipeline show {c['what']} cuts wall time per genome "
                     f"{fmt_x(c['wall_speedup'])}: the plan buys that hardware.")
    if d.get("evaluation"):
        ev = d["evaluation"]
        parts.append(f"Over {d.get('start_year')}-{d.get('end_year')} it costs {fmt_usd(ev.get('capex_usd'))} "
                     f"capital and {fmt_usd(ev.get('opex_usd'))} operating; "
                     + ("every yearly demand check passes." if ev.get("feasible")
                        else f"{len(ev.get('failures') or [])} yearly demand checks fall short (see section 8)."))
    text = " ".join(parts) or "No usage or design data is loaded yet."
    return Section("summary", SECTION_TITLES["summary"],
                   [b.para("summary", text, usage_refs(f)[:3] + ev_ref)])


def _count(n: int | None, word: str) -> str:
    """"1 department", "11 departments", "no projects" (a count inside a sentence)."""
    return f"no {word}s" if not n else f"1 {word}" if n == 1 else f"{fmt_int(n)} {word}s"


def _unassigned(row: dict[str, Any]) -> bool:
    """The Unassigned bucket's row (older stored facts have no flag: its code, Department.UNASSIGNED_CODE)."""
    return bool(row.get("unassigned", row.get("code") == "unassigned"))


def _own_hardware_comparison(f: dict[str, Any]) -> dict[str, Any] | None:
    """The last benchmark comparison whose faster configuration is the design's own and partly bought by it:
    a speed-up on hardware the plan does not buy is the benchmark study's finding (section 6), not the plan's."""
    hw = (f.get("design") or {}).get("hardware") or {}
    nodes, storage, bought = set(hw.get("nodes") or []), set(hw.get("storage") or []), set(hw.get("bought") or [])
    own = [c for c in (f.get("benchmarks") or {}).get("comparisons") or []
           if c.get("after_node") in nodes and c.get("after_storage") in storage
           and bought & {c.get("after_node"), c.get("after_storage")}]
    return own[-1] if own else None


def _institution(b: Builder) -> Section:
    f, u = b.f, b.f.get("usage") or {}
    refs = usage_refs(f)
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
    depts = u.get("by_department") or []
    top = [d for d in depts if not _unassigned(d)][:1]  # Unassigned is a bucket, not a department
    top_txt = (f" The largest department, {top[0]['name']}, used {fmt_pct(top[0]['share'])} of the core-hours."
               if top else "")
    top_txt += "".join(f" {fmt_pct(d['share'])} of the core-hours ran under identities no mapping attributes to a "
                       "department (Unassigned)." for d in depts if _unassigned(d))
    util = (f" Measured against the recorded capacity of the cluster the system was "
            f"{fmt_pct(u['utilisation'])} utilised." if u.get("utilisation") is not None else
            " No cluster capacity is recorded, so utilisation is not stated.")
    s.blocks.append(b.para("institution", (
        f"{(f.get('institution') or {}).get('name', 'The institution')} runs the {f.get('cluster') or 'shared'} "
        f"cluster for {_count(u['users'], 'user')} in {_count(u['projects'], 'project')} and "
        f"{_count(u['departments'], 'department')}. Over {period_text(f)} ({u.get('months')} months) they ran "
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
    s.blocks.append(Table("usage_summary", f"Usage of {f.get('cluster') or 'all clusters'}, {period_text(f)}",
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


def _workload(b: Builder) -> Section:
    w = b.f.get("workload")
    s = Section("workload", SECTION_TITLES["workload"])
    if not w:
        s.blocks.append(b.para("workload", NO_WORKLOAD))
        return s
    refs = b.known(w.get("refs") or usage_refs(b.f))
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


def _storage(b: Builder) -> Section:
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
        s.blocks.append(Table("storage_deciles",
                              "Distribution of file sizes (deciles; 1 KiB = 1,024 bytes, as on the Storage page)",
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


def _benchmarks(b: Builder) -> Section:
    bm = b.f.get("benchmarks") or {}
    s = Section("benchmarks", SECTION_TITLES["benchmarks"])
    rows = bm.get("rows") or []
    if bm.get("applies") is False:
        s.blocks.append(b.para("benchmarks", (
            "The design asks no genomics question: no year has a genomes-a-day demand or check, so the per-genome "
            f"benchmarks of the {bm.get('pipeline')} pipeline do not bear on it (they are on the hardware "
            "catalog page)."), b.known([f"eval-{(b.f.get('design') or {}).get('evaluation_id')}"])))
        return s
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


def _queue_waits(b: Builder) -> list[Section]:
    """Waits from the design's latest scheduling replay (planner.replay); no section when not replayed."""
    q = b.f.get("queue_waits")
    if not q:
        return []
    s = Section("queue_waits", SECTION_TITLES["queue_waits"])
    ref = b.known([q["ref"]])
    s.blocks.append(b.para("queue_waits", (
        f"The {fmt_int(q['jobs'])} jobs submitted to {q['cluster']} from {q['base_period'][0]} up to "
        f"{q['base_period'][1]} (exclusive"
        + (f"; {q['base_note']}" if q.get("base_note") else "")
        + "; counted by submit time, where the usage tables count a job in the month it ended) were "
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


def _assumptions(b: Builder) -> Section:
    d = b.f.get("design") or {}
    s = Section("assumptions", SECTION_TITLES["assumptions"])
    items = list(d.get("assumptions") or [])
    s.blocks.append(b.para("assumptions", " ".join(items) if items else "No design assumptions are recorded.",
                           b.known([f"design-{d.get('id')}"])))
    if d.get("prices"):
        s.blocks.append(price_table(d["prices"], b.known([f"eval-{d.get('evaluation_id')}"]),
                                    bool(d.get("priced_by_year"))))
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


def _appendix(b: Builder) -> Section:
    rows = [[r.key, r.kind, r.label, r.detail] for r in b.refs.values()]
    return Section("appendix", SECTION_TITLES["appendix"], [
        Table("references", "Sources cited in this report", ["key", "kind", "source", "detail"], rows, [],
              [False, False, False, False], "Each table and figure names the keys of its sources."),
    ])


__all__ = ["SECTION_TITLES", "NO_STORAGE", "NO_WORKLOAD", "build_document", "cite"]
