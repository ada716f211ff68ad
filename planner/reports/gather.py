"""Gather a report's facts from the database, through the other areas' selectors and services.

Returns plain JSON-safe dicts (stored on the report version, so a version can be rebuilt exactly)
and the references every number cites. Nothing here recomputes what another area computes: usage
comes from ``forecasts.usage.selectors.usage_filtered``, utilisation from ``forecasts.workload.core``,
storage from the stored ``StorageSnapshot`` statistics, projections from the stored
``ForecastFit``/``SequencerPlan`` (``plan_summary``), per-genome figures from
``planner.hardware.costmodel.CostModel`` and the configuration from the stored ``DesignEvaluation``.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.db.models import Count, Max, Min, Q, Sum
from django.utils import timezone

from forecasts.accounting.models import Cluster, ClusterCapacity, Department, IngestRun, Institution
from forecasts.accounting.selectors import logs_first_part_months
from forecasts.demand.models import ForecastFit, SequencerPlan
from forecasts.demand.sequencing import node_type_label
from forecasts.storage.display import binary_size
from forecasts.units import BYTES_PER_TB
from forecasts.usage.selectors import usage_filtered
from forecasts.workload.core import CapacityStep, capacity_core_hours, month_end
from planner.designs.capacity import DEFAULT_PIPELINE, CostParams, core_hours_share
from planner.designs.labels import genomics_applies
from planner.designs.models import Design, DesignEvaluation
from planner.designs.services import design_evaluate, design_latest_evaluation, design_scenario
from planner.hardware.costmodel import CostModel, NoBenchmarkError, speedup
from planner.hardware.models import NodeType
from planner.hardware.services import catalog_from_db
from planner.replay.report import queue_wait_facts
from planner.reports import workload_adapter
from planner.reports.chance import chance_facts
from planner.reports.document import fmt_bytes, fmt_iec
from planner.reports.inputs import design_links
from planner.reports.supply import compute_only, price_rows


class ReportInputError(ValueError):
    """A chosen input (cluster, design, forecast) does not exist or has nothing to report."""


def _ref(refs: list[dict[str, str]], key: str, kind: str, label: str, detail: str = "") -> str:
    if not any(r["key"] == key for r in refs):
        refs.append({"key": key, "kind": kind, "label": label, "detail": detail})
    return key


def default_period(cluster: Cluster | None) -> tuple[date, date] | None:
    """The whole span of usage of the cluster (first complete month, last complete month).

    The month of the last job end in the logs is usually cut short (logs taken on the 6th hold six
    days of it), so it is left out of the default period unless it is the only month; so is a first
    month the logs begin inside (KTH's September 1996: a day of it), whose capacity would count whole.
    """
    agg = usage_filtered(cluster=cluster.name if cluster else None).aggregate(lo=Min("month"), hi=Max("month"))
    if agg["lo"] is None:
        return None
    runs = IngestRun.objects.filter(status=IngestRun.Status.COMPLETED)
    if cluster:
        runs = runs.filter(cluster=cluster)
    last_end = runs.aggregate(e=Max("last_end"))["e"]
    hi = agg["hi"]
    if last_end is not None and last_end.date() < month_end(hi) - timedelta(days=1) and hi > agg["lo"]:
        hi = date(hi.year - (hi.month == 1), (hi.month - 2) % 12 + 1, 1)
    lo = agg["lo"]
    if lo < hi and lo in logs_first_part_months([cluster.pk] if cluster else None):
        lo = date(lo.year + (lo.month == 12), lo.month % 12 + 1, 1)
    return lo, hi


def gather_facts(*, design: Design, cluster: Cluster | None = None, start: date | None = None,
                 end: date | None = None, forecast: ForecastFit | None = None,
                 plan: SequencerPlan | None = None) -> dict[str, Any]:
    refs: list[dict[str, str]] = []
    period = (start, end) if start and end else default_period(cluster)
    if period is None:
        period = (date.today().replace(day=1), date.today().replace(day=1))
    start, end = period[0].replace(day=1), period[1].replace(day=1)
    inst = Institution.objects.first()
    facts: dict[str, Any] = {
        "institution": {"name": inst.name, "short_name": getattr(inst, "short_name", "")} if inst else {},
        "cluster": cluster.name if cluster else None,
        "period": {"start": start.isoformat(), "end": end.isoformat()},
        "generated_at": timezone.now().isoformat(timespec="seconds"),
    }
    facts["ingest_runs"] = _ingest_runs(refs, cluster, start, end)
    wr = workload_adapter.workload_report_for(cluster=cluster, start=start, end=end)
    facts["usage"] = _usage(cluster, start, end, wr)
    facts["workload"] = workload_adapter.workload_facts(
        report=wr, refs=[r["key"] for r in refs if r["kind"] == "ingest run"])
    facts["storage"] = _storage(refs, start, end)
    links = design_links(design)
    facts["forecast"] = _forecast(refs, forecast, links.get("core_fit"))
    facts["sequencer_plan"] = _plan(refs, plan, links.get("sequencer_plan"))
    ev = design_latest_evaluation(design) or design_evaluate(design=design)
    facts["design"] = _design(refs, design, ev)
    facts["benchmarks"] = _benchmarks(refs, design, ev, applies=bool(facts["design"]["genomics"]))
    facts["queue_waits"] = queue_wait_facts(design, refs)
    facts["chance"] = chance_facts(design, ev, refs)
    facts["references"] = refs
    return facts


# ---- usage ---------------------------------------------------------------------------------------
def _ingest_runs(refs: list[dict[str, str]], cluster: Cluster | None, start: date, end: date) -> list[dict[str, Any]]:
    runs = IngestRun.objects.filter(status=IngestRun.Status.COMPLETED, jobs_ingested__gt=0)
    if cluster:
        runs = runs.filter(cluster=cluster)
    runs = runs.filter(Q(last_end__isnull=True) | Q(last_end__date__gte=start),
                       Q(first_start__isnull=True) | Q(first_start__date__lt=month_end(end)))
    out = []
    for r in runs.select_related("cluster").prefetch_related("files").order_by("pk"):
        files = ", ".join(f.name for f in r.files.all())
        detail = (f"{r.format} logs of {r.cluster.name}: {files}; {r.jobs_ingested:,} jobs, "
                  f"{r.first_start:%Y-%m-%d} to {r.last_end:%Y-%m-%d}, finished "
                  f"{r.finished_at:%Y-%m-%d %H:%M}" if r.first_start and r.last_end and r.finished_at
                  else f"{r.format} logs of {r.cluster.name}: {files}")
        _ref(refs, f"ingest-{r.pk}", "ingest run", f"Ingest run #{r.pk}", detail)
        out.append({"id": r.pk, "cluster": r.cluster.name, "format": r.format, "files": files,
                    "jobs": r.jobs_ingested})
    return out


def _usage(cluster: Cluster | None, start: date, end: date, wr: dict[str, Any] | None) -> dict[str, Any]:
    """Totals, per year, per department and per month; utilisation as the workload report states it."""
    rows = usage_filtered(cluster=cluster.name if cluster else None, start=start, end=end)
    tot = rows.aggregate(jobs=Sum("jobs"), core_hours=Sum("core_hours"),
                         users=Count("identity__user", distinct=True), projects=Count("project", distinct=True),
                         departments=Count("department", distinct=True,  # 'Unassigned' is no department
                                           filter=~Q(department__code=Department.UNASSIGNED_CODE)))
    if not tot["jobs"]:
        return {"jobs": 0}
    monthly = {m["month"]: m["ch"] for m in rows.values("month").annotate(ch=Sum("core_hours")).order_by("month")}
    steps = []
    if cluster:
        steps = [CapacityStep(c.effective_from, c.cores)
                 for c in ClusterCapacity.objects.filter(cluster=cluster).order_by("effective_from")]
    months = []
    for m, ch in monthly.items():
        cap = capacity_core_hours(steps, m, month_end(m)) if steps else None
        months.append({"month": m.isoformat(), "core_hours": float(ch or 0), "capacity_core_hours": cap})
    cap_total = capacity_core_hours(steps, start, month_end(end)) if steps else None
    util = float(tot["core_hours"]) / cap_total if cap_total else None
    if wr and (wr.get("utilisation") or {}).get("capacity_known"):
        # the workload report's capacity for the period (dated capacity steps), against these totals
        cap_total = wr["utilisation"]["capacity_core_hours"]
        util = float(tot["core_hours"]) / cap_total if cap_total else None
    yearly = []
    for y in (rows.values("month__year").annotate(jobs=Sum("jobs"), ch=Sum("core_hours"),
                                                  users=Count("identity__user", distinct=True),
                                                  months=Count("month", distinct=True))
              .order_by("month__year")):
        yearly.append({"year": y["month__year"], "months": y["months"], "jobs": y["jobs"],
                       "core_hours": float(y["ch"]), "users": y["users"]})
    by_dept = []
    for d in (rows.values("department__code", "department__name")
              .annotate(jobs=Sum("jobs"), ch=Sum("core_hours"), users=Count("identity__user", distinct=True))
              .order_by("-ch")):
        by_dept.append({"code": d["department__code"], "name": d["department__name"], "jobs": d["jobs"],
                        "unassigned": d["department__code"] == Department.UNASSIGNED_CODE,
                        "core_hours": float(d["ch"]), "users": d["users"],
                        "share": float(d["ch"]) / float(tot["core_hours"]) if tot["core_hours"] else 0.0})
    values = [x["core_hours"] for x in months]
    growth = None
    if len(values) >= 24:
        last, before = sum(values[-12:]), sum(values[-24:-12])
        growth = {"months": 12, "last": last, "before": before, "ratio": last / before if before else None}
    return {
        "jobs": tot["jobs"], "core_hours": float(tot["core_hours"] or 0), "users": tot["users"],
        "projects": tot["projects"], "departments": tot["departments"], "months": len(months),
        "capacity_core_hours": cap_total,
        "utilisation": util,
        "monthly": months, "yearly": yearly, "by_department": by_dept, "growth": growth,
    }


# ---- storage -------------------------------------------------------------------------------------
def _storage(refs: list[dict[str, str]], start: date, end: date) -> dict[str, Any] | None:
    """The latest scan of each file system taken during the usage period."""
    from forecasts.storage.models import StorageSnapshot

    snaps = list(StorageSnapshot.objects.filter(status=StorageSnapshot.Status.COMPLETED, taken_on__gte=start,
                                                taken_on__lt=month_end(end))
                 .select_related("filesystem").order_by("filesystem__name", "-taken_on"))
    latest: dict[int, Any] = {}
    for s in snaps:
        latest.setdefault(s.filesystem_id, s)
    if not latest:
        return None
    chosen = list(latest.values())
    keys = [_ref(refs, f"scan-{s.pk}", "storage scan", f"Scan of {s.filesystem.name} on {s.taken_on}",
                 f"{s.format} scan {s.scan_name}; {s.files:,} files, {s.lines_read:,} lines read")
            for s in chosen]
    big = max(chosen, key=lambda s: s.files)  # the deciles and small-file facts of the largest scan
    stats = big.stats or {}
    files = sum(s.files for s in chosen)
    nbytes = sum(s.bytes_total for s in chosen)
    zero = sum(s.zero_length for s in chosen)
    deciles = stats.get("deciles") or []
    d80 = next((d for d in deciles if d.get("decile") == 80), None)
    rows = [
        {"label": "File systems scanned", "value": ", ".join(f"{s.filesystem.name} ({s.taken_on})" for s in chosen)},
        {"label": "# of files", "value": f"{files:,}"},
        {"label": "Total storage used (TB)", "value": f"{nbytes / BYTES_PER_TB:,.1f}"},
        {"label": "Average file size", "value": fmt_bytes(nbytes / files) if files else "–"},
        {"label": f"Median file size ({big.filesystem.name})", "value": fmt_bytes(big.median_size_bytes)},
        {"label": f"Maximum file size ({big.filesystem.name})",  # the page's 100% decile, in its units
         "value": binary_size(stats["max_size_bytes"]) if stats.get("max_size_bytes") is not None else "–"},
        {"label": f"80% of files smaller than ({big.filesystem.name})", "value": _decile_size(d80)},
        {"label": "# of zero-length files", "value": f"{zero:,}"},
    ]
    facts_txt = []
    for sf in stats.get("small_files") or []:
        b = sf["bytes_share"] * 100
        held = "under 0.001%" if b < 0.001 else f"{b:.3g}%"
        under = f"under {fmt_iec(sf['under_bytes'])}" if sf.get("under_bytes") else sf["label"]
        facts_txt.append(f"{sf['files']:,} files ({sf['files_share'] * 100:.0f}%) are {under} and hold "
                         f"{held} of the bytes.")
    dirs = stats.get("directories") or {}
    if dirs.get("count"):
        facts_txt.append(f"The scan saw {dirs['count']:,} directories.")
    fit = ((big.facts or {}).get("inode_fit") or [None])[0]
    if fit:
        facts_txt.append(f"{fit['files']:,} files fit in a {fit['inode_data_bytes']:,}-byte inode, saving "
                         f"{fmt_bytes(fit['saved_bytes'])} of {fmt_iec(fit['sub_block_bytes'])} sub-blocks.")
    return {
        "refs": keys, "rows": rows, "files": files, "bytes": nbytes,
        "deciles": [{"decile": f"{d['decile']}%", "max_size": _decile_size(d), "files": f"{d['files']:,}",
                     "files_n": d["files"]} for d in deciles],
        "small_file_facts": facts_txt,
        "narrative": (f"The latest scans hold {files:,} files and {nbytes / BYTES_PER_TB:,.1f} TB. Small files "
                      "drive metadata operations rather than capacity."),
    }


def _decile_size(d: dict[str, Any] | None) -> str:
    """A decile's largest file as the Storage page writes it (forecasts.storage.display.binary_size: the scan's
    bins have power-of-two edges), so "16.9 KiB" here is "16.9 KiB" there, not "17.3 KB"."""
    if not d:
        return "–"
    return binary_size(d["max_size_bytes"]) if d.get("max_size_bytes") is not None else d["max_size"]


# ---- projections ---------------------------------------------------------------------------------
def _forecast(refs: list[dict[str, str]], fit: ForecastFit | None, linked: int | None) -> dict[str, Any] | None:
    """The chosen fit, else the one the design links (none: no forecast); ``role`` says which it is."""
    fit = fit or (ForecastFit.objects.filter(pk=linked).first() if linked else None)
    if fit is None:
        return None
    _ref(refs, f"fit-{fit.pk}", "forecast fit", f"Forecast fit #{fit.pk}: {fit.series_label}",
         f"{fit.family} ({fit.selection}) on {fit.start:%Y-%m} to {fit.through:%Y-%m}, "
         f"{len(fit.values)} periods; created {fit.created_at:%Y-%m-%d %H:%M}")
    # a year of a flow (core-hours, jobs) is per year; a stock (PB stored) or a mean keeps its own units
    return {"id": fit.pk, "series": fit.series_label, "family": fit.family, "selection": fit.selection,
            "reason": fit.reason, "units": fit.units, "year_units": fit.yearly_units.replace("/year", " per year"),
            "history_from": fit.start.isoformat(), "through": fit.through.isoformat(), "yearly": fit.yearly,
            "role": "design" if fit.pk == linked else "context"}


def _plan(refs: list[dict[str, str]], plan: SequencerPlan | None, linked: int | None) -> dict[str, Any] | None:
    """The chosen plan, else the one the design links (none: no plan); ``role`` says which it is."""
    from forecasts.demand.plans import plan_of, plan_summary
    from forecasts.demand.sequencing import yearly_figures

    plan = plan or (SequencerPlan.objects.filter(pk=linked).first() if linked else None)
    if plan is None:
        return None
    _ref(refs, f"plan-{plan.pk}", "sequencer plan", f"Sequencer plan #{plan.pk}: {plan.name} v{plan.version}",
         f"source {plan.source}, saved {plan.created_at:%Y-%m-%d}")
    doc = plan_of(plan)
    ref = doc.node_types[doc.reference_node]
    summary = plan_summary(plan)
    # genomes a day to the plan page's three figures (the summary keeps two decimals: a small lab's 0.0422 is 0.04)
    peaks = {y.year: y.genomes_per_day_peak for y in yearly_figures(doc)}
    summary["years"] = [y | {"genomes_per_day_peak": peaks.get(y["year"], y["genomes_per_day_peak"])}
                        for y in summary["years"]]
    return summary | {
        "role": "design" if plan.pk == linked else "context",
        "convention_text": (f"core-hours on the plan's reference core, {_core_label(doc.reference_node)} at "
                            f"{ref.clock_ghz:g} GHz (architecture factor {ref.arch_factor:g}); other node types "
                            "converted linearly by clock x architecture factor"),
    }


def _core_label(key: str) -> str:
    """A plan's node key ("amd_interlagos") as the catalog names that CPU ("AMD Opteron 6276 (Interlagos)")."""
    node = NodeType.objects.filter(name__in=(key, node_type_label(key))).only("cpu_model").first()
    return node.cpu_model if node is not None and node.cpu_model else key.replace("_", " ")


# ---- supply side ---------------------------------------------------------------------------------
def _purchase_rows(scenario: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for p in scenario.get("purchases") or []:
        if p.get("node_type"):
            item, count = f"nodes: {p['node_type']}", f"{p.get('count', 0):,}"
        elif p.get("storage_system"):
            item, count = f"storage: {p['storage_system']}", f"{p.get('count', 0):,}"
        else:
            item, count = f"flash: {scenario.get('constraints', {}).get('flash_system', 'flash')}", \
                f"{p.get('flash_tb', 0):,} TB"
        out.append({"year": p.get("year"), "item": item, "count": count, "note": p.get("note", "")})
    return sorted(out, key=lambda r: r["year"] or 0)


def _design(refs: list[dict[str, str]], design: Design, ev: DesignEvaluation) -> dict[str, Any]:
    sc = design.scenario
    _ref(refs, f"design-{design.pk}", "design", f"Design #{design.pk}: {design.name} v{design.version}",
         f"scenario saved {design.created_at:%Y-%m-%d %H:%M}")
    _ref(refs, f"eval-{ev.pk}", "design evaluation", f"Design evaluation #{ev.pk} of design #{design.pk}",
         f"inputs sha256 {ev.inputs_sha256[:12]}; evaluated {ev.created_at:%Y-%m-%d %H:%M}")
    result = ev.result
    years = result["years"]
    purchase_years = [p.get("year") for p in sc.get("purchases") or [] if p.get("year")]
    conf_year = max(purchase_years) if purchase_years else years[0]["year"]
    y = next((x for x in years if x["year"] == conf_year), years[-1])
    costs = sc.get("costs") or {}
    constraints = sc.get("constraints") or {}
    maint = float(costs.get("maintenance_days_per_year", CostParams().maintenance_days_per_year))
    nodes_by_name = {n["name"]: n for n in (ev.catalog_snapshot or {}).get("node_types", [])}
    counts = _active_node_counts(sc, conf_year, nodes_by_name)
    fullness = constraints.get("fullness_limit")
    conf = {
        "year": y["year"], "cores": y["cores"], "nodes": y["nodes"], "memory_tb": y["memory_tb"],
        "peak_tf": y["peak_tf"], "core_hours_available": y["core_hours_available"],
        "raw_pb": y["raw_tb"] / 1000.0, "usable_pb": y["usable_tb"] / 1000.0, "flash_tb": y["flash_tb"],
        "bandwidth_gbps": y["bandwidth_gbps"], "schedulable_hours": 24 * (365 - maint),
        "maintenance_days": maint,
        "fullness_limit": fullness if fullness is not None else (y["plannable_tb"] / y["usable_tb"]
                                                                 if y["usable_tb"] else None),
        # the one compute-capacity figure of the report: what the evaluation compares with demand
        "core_hours_at_target_ref": y["normalised_core_hours_at_target"],
        "utilisation_target": constraints.get("utilisation_target", 0.85),
        "core_hours_share": core_hours_share(design_scenario(sc).design),
        "reference_core_ghz": float((sc.get("reference_core") or {}).get("clock_ghz", 3.5)),
    }
    storage_free = compute_only({"evaluation": {"years": years}})
    genomics = genomics_applies(years)
    ref_core = sc.get("reference_core") or {}
    core_note = f"{ref_core['note']} " if ref_core.get("note") else ""
    assumptions = [
        f"Demand and capacity are compared in core-hours on the reference core ({core_note}"
        f"{ref_core.get('clock_ghz', 3.5)} GHz, architecture factor {ref_core.get('arch_factor', 1.0)}), by a "
        f"strict linear clock comparison.",
        f"Capacity counts {constraints.get('utilisation_target', 0.85) * 100:.0f}% utilisation of "
        f"{24 * (365 - maint):,.0f} schedulable hours per core per year.",
        f"Online storage is planned to {conf['fullness_limit'] * 100:.0f}% of usable capacity."
        if conf["fullness_limit"] else "",
        "" if storage_free else f"The flash tier holds {constraints.get('flash_days', 7):g} days of ingest.",
        f"Power at ${costs.get('power_usd_per_kwh', 0.10):.2f}/kWh with PUE {costs.get('pue', 1.5):g}; future "
        f"costs discounted at {costs.get('discount_rate', 0.05) * 100:.0f}% a year.",
    ]
    for n in nodes_by_name.values():
        if n.get("assumptions") and n["name"] in counts:
            assumptions.append(f"{n['name']}: {n['assumptions']}.")
    return {
        "id": design.pk, "name": design.name, "version": design.version, "description": design.description,
        "evaluation_id": ev.pk, "start_year": years[0]["year"], "end_year": years[-1]["year"],
        "evaluation": {k: result[k] for k in ("capex_usd", "opex_usd", "tco_usd", "npv_usd", "feasible",
                                              "failures", "years")},
        # the genomics model's derivations (arch factors, tiers) only where a year checks or asks for genomes
        "genomics": genomics, "derivations": (result.get("derivations") or {}) if genomics else {},
        "configuration": conf,
        "node_types": [{**{k: nodes_by_name[n][k] for k in ("name", "sockets", "cores_per_node", "cpu_model",
                                                          "base_clock_ghz", "memory_gb")}, "count": c}
                       for n, c in counts.items() if n in nodes_by_name],
        "purchases": _purchase_rows(sc), "assumptions": [a for a in assumptions if a],
        "prices": price_rows(sc, ev.catalog_snapshot), "priced_by_year": bool(sc.get("prices") or ev.price_sources),
        "hardware": _hardware(sc),
        "pipeline": sc.get("pipeline") or DEFAULT_PIPELINE,
    }


def _hardware(sc: dict[str, Any]) -> dict[str, list[str]]:
    """Node types and storage systems the design holds, and those it buys (the summary's benchmark claim)."""
    items = [*(sc.get("existing") or []), *(sc.get("purchases") or [])]
    flash = (sc.get("constraints") or {}).get("flash_system") or "flash-gss"
    bought_flash = [flash for p in sc.get("purchases") or [] if p.get("flash_tb")]
    bought = [p.get("node_type") or p.get("storage_system") for p in sc.get("purchases") or []]
    return {"nodes": sorted({i["node_type"] for i in items if i.get("node_type")}),
            "storage": sorted({i["storage_system"] for i in items if i.get("storage_system")} | set(bought_flash)),
            "bought": sorted({b for b in bought if b} | set(bought_flash))}


def _active_node_counts(sc: dict[str, Any], year: int, nodes: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    items = [(e.get("node_type"), e.get("count", 0), e.get("purchase_year"), e.get("lifetime_years"))
             for e in sc.get("existing") or []]
    items += [(p.get("node_type"), p.get("count", 0), p.get("year"), None) for p in sc.get("purchases") or []]
    for name, count, bought, life in items:
        if not name or bought is None:
            continue
        life = life or (nodes.get(name) or {}).get("lifetime_years", 5)
        if bought <= year < bought + life:
            counts[name] = counts.get(name, 0) + int(count)
    return counts


def _benchmarks(refs: list[dict[str, str]], design: Design, ev: DesignEvaluation | None, *,
                applies: bool) -> dict[str, Any]:
    """Per-genome CPU and wall hours of the design's pipeline: every measured configuration, then
    the design's own node types on its pipeline storage (derived by the cost model, with its rule)."""
    from planner.hardware.models import Benchmark

    pipeline = design.scenario.get("pipeline") or DEFAULT_PIPELINE
    if not applies:
        # no year checks genomes/day or asks for genomes: the pipeline's benchmarks answer no question of this design
        return {"pipeline": pipeline, "rows": [], "comparisons": [], "applies": False}
    catalog = catalog_from_db()
    model = CostModel(catalog)
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for b in (Benchmark.objects.filter(pipeline=pipeline, cpu_hours_per_sample__isnull=False)
              .select_related("node_type", "storage_system").order_by("-wall_core_hours_per_sample")):
        key = _ref(refs, f"bench-{b.pk}", "benchmark", f"Benchmark #{b.pk}: {b.pipeline} on "
                   f"{b.node_type.name}/{b.storage_system.name}", b.source)
        cpu = model.cpu_hours_per_sample(pipeline, b.node_type.name, b.storage_system.name)
        wall = model.wall_core_hours_per_sample(pipeline, b.node_type.name, b.storage_system.name)
        rows.append({"node_type": b.node_type.name, "storage": b.storage_system.name, "cpu_hours": cpu.value,
                     "wall_hours": wall.value, "cpu_efficiency": cpu.value / wall.value if wall.value else None,
                     "rule": "measured" if wall.rule.startswith("benchmark") else wall.rule, "measured": True,
                     "ref": key})
        seen.add((b.node_type.name, b.storage_system.name))
    for key_ns in ((ev.result.get("derivations") or {}) if ev else {}):
        node, _, storage = key_ns.partition("/")
        if (node, storage) in seen:
            continue
        try:
            cpu = model.cpu_hours_per_sample(pipeline, node, storage)
            wall = model.wall_core_hours_per_sample(pipeline, node, storage)
        except (NoBenchmarkError, KeyError, LookupError):
            continue
        rows.append({"node_type": node, "storage": storage, "cpu_hours": cpu.value, "wall_hours": wall.value,
                     "cpu_efficiency": cpu.value / wall.value if wall.value else None, "rule": wall.rule,
                     "measured": False, "ref": f"eval-{ev.pk}" if ev else ""})
    return {"pipeline": pipeline, "rows": rows, "comparisons": _comparisons([r for r in rows if r["measured"]]),
            "applies": True}


def _comparisons(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Node choice alone, storage alone (pairs differing in one thing), and both: slowest -> fastest."""
    out = []

    def comp(what: str, a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        return {"what": what, "after_node": b["node_type"], "after_storage": b["storage"],
                "wall_before": a["wall_hours"], "wall_after": b["wall_hours"],
                "wall_speedup": speedup(a["wall_hours"], b["wall_hours"]), "cpu_before": a["cpu_hours"],
                "cpu_after": b["cpu_hours"], "cpu_speedup": speedup(a["cpu_hours"], b["cpu_hours"])}

    for a in rows:
        for b in rows:
            if a is b or b["wall_hours"] >= a["wall_hours"]:
                continue
            if a["storage"] == b["storage"] and a["node_type"] != b["node_type"]:
                out.append(comp(f"node choice alone ({a['node_type']} -> {b['node_type']} on {a['storage']})", a, b))
            elif a["node_type"] == b["node_type"] and a["storage"] != b["storage"]:
                out.append(comp(f"storage alone ({a['storage']} -> {b['storage']} with {a['node_type']})", a, b))
    if len(rows) >= 2:
        slow, fast = max(rows, key=lambda r: r["wall_hours"]), min(rows, key=lambda r: r["wall_hours"])
        if slow["node_type"] != fast["node_type"] and slow["storage"] != fast["storage"]:
            out.append(comp(f"node and storage together ({slow['node_type']}/{slow['storage']} -> "
                            f"{fast['node_type']}/{fast['storage']})", slow, fast))
    return out
