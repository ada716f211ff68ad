"""QA walk of the report document, without a database: one compute-capacity figure with its basis, benchmark
claims only about hardware the plan buys, compute-only designs without storage columns, projections quoted
inside the design's years, human column labels."""

from __future__ import annotations

import copy
from typing import Any

from planner.reports.render_html import render_html
from planner.reports.sections import build_document
from planner.reports.supply import COMPUTE_ONLY

COMPARISON = {"what": "node and storage together (amd-interlagos/ddn-sfa10k -> ivy-bridge/flash-gss)",
              "after_node": "ivy-bridge", "after_storage": "flash-gss", "wall_before": 2702.0, "wall_after": 562.0,
              "wall_speedup": 4.81, "cpu_before": 1247.0, "cpu_after": 471.0, "cpu_speedup": 2.65}


def _year(year: int, capacity: float, demand: float, storage: bool) -> dict[str, Any]:
    tb = 800.0 if storage else 0.0
    return {"year": year, "cores": 6264, "normalised_core_hours_at_target": capacity, "demand_core_hours": demand,
            "raw_tb": tb * 1.3, "usable_tb": tb, "plannable_tb": tb * 0.8, "flash_tb": 0.0,
            "demand_tb": 300.0 if storage else 0.0, "genomes_per_day_capacity": 0.0,
            "genomes_per_day_demand": 0.0, "capex_usd": 1e5, "opex_usd": 1e4, "tco_usd": 1.1e5,
            "cost_per_core_hour_usd": 0.01, "checks": [{"name": "core_hours", "passed": True}]}


def _facts(*, storage: bool = False) -> dict[str, Any]:
    """A compute-only plan of the walk (xeon-e5-2697v4 nodes bought, no storage): 53.5 M schedulable
    core-hours a year, 45.5 M at the 85% target on the reference core."""
    years = [_year(2021, 36.7e6, 30.5e6, storage), _year(2022, 45.5e6, 35.3e6, storage)]
    return {
        "institution": {"name": "Test Institute"}, "cluster": "nexus",
        "period": {"start": "2014-01-01", "end": "2019-12-01"},
        "usage": {"jobs": 0}, "ingest_runs": [], "workload": None, "storage": None,
        "forecast": None, "sequencer_plan": None,
        "benchmarks": {"pipeline": "P", "rows": [], "comparisons": [COMPARISON]},
        "design": {
            "id": 7, "name": "nexus 90% plan", "evaluation_id": 7, "start_year": 2021, "end_year": 2022,
            "evaluation": {"capex_usd": 2e5, "opex_usd": 2e4, "tco_usd": 2.2e5, "npv_usd": 2.1e5, "feasible": True,
                           "failures": [], "years": years},
            "configuration": {"year": 2022, "cores": 6264, "nodes": 174, "memory_tb": 22.0, "peak_tf": 231.0,
                              "core_hours_available": 53.5e6, "core_hours_at_target_ref": 45.5e6,
                              "utilisation_target": 0.85, "core_hours_share": 1.0,
                              "raw_pb": 1.04 if storage else 0.0, "usable_pb": 0.8 if storage else 0.0,
                              "flash_tb": 0.0, "bandwidth_gbps": 0.0, "schedulable_hours": 8544,
                              "maintenance_days": 9.0, "fullness_limit": 0.8 if storage else None},
            "hardware": {"nodes": ["xeon-e5-2697v4"], "storage": ["gpfs-x"] if storage else [],
                         "bought": ["xeon-e5-2697v4"]},
            "node_types": [], "purchases": [], "assumptions": [], "derivations": {}},
        "references": [{"key": "eval-7", "kind": "design evaluation", "label": "Evaluation #7", "detail": ""},
                       {"key": "design-7", "kind": "design", "label": "Design #7", "detail": ""}],
    }


def _table(doc: Any, key: str) -> Any:
    return next(t for t in doc.tables() if t.key == key)


def test_the_summary_and_the_tables_quote_one_compute_capacity_with_its_basis() -> None:
    doc = build_document(_facts())
    summary = doc.paragraphs()[0].text
    assert "45.5 M core-hours a year at the 85% utilisation target, on the reference core" in summary
    assert "54 M" not in summary and "53.5" not in summary
    conf = dict(_table(doc, "configuration").rows)
    assert conf["Core-hours a year at the 85% utilisation target, on the reference core (millions)"] == "45.5"
    assert conf["Schedulable core-hours a year, all cores, before the utilisation target (millions)"] == "53.5"
    schedule = _table(doc, "schedule")
    assert schedule.columns[1] == "compute capacity (M core-h at the 85% target, reference core)"
    assert schedule.rows[-1][:2] == ["2022", "45.5"]


def test_a_split_design_says_its_capacity_is_that_of_the_cores_outside_the_genomics_pipeline() -> None:
    facts = _facts(storage=True)
    facts["design"]["configuration"]["core_hours_share"] = 0.33
    summary = build_document(facts).paragraphs()[0].text
    assert "on the 33% of the cores not running the genomics pipeline" in summary


def test_the_summary_claims_no_speed_up_on_hardware_the_plan_does_not_buy() -> None:
    summary = build_document(_facts()).paragraphs()[0].text
    assert "4.81x" not in summary and "ivy-bridge" not in summary
    bought = _facts(storage=True)
    bought["design"]["hardware"] = {"nodes": ["amd-interlagos", "ivy-bridge"], "storage": ["flash-gss"],
                                    "bought": ["ivy-bridge", "flash-gss"]}
    assert "cuts wall time per genome 4.81x: the plan buys that hardware" in build_document(bought).paragraphs()[0].text


def test_a_compute_only_design_shows_no_storage_columns_rows_or_chart() -> None:
    doc = build_document(_facts())
    assert "no storage (a compute-only design)" in doc.paragraphs()[0].text
    schedule = _table(doc, "schedule")
    assert schedule.columns == ["year", "compute capacity (M core-h at the 85% target, reference core)",
                                "compute demand (M core-h)", "checks"]
    assert all(len(r) == 4 for r in schedule.rows)
    assert "capacity_storage" not in [f.key for f in doc.figures()]
    assert not any("storage" in row[0].lower() or "flash" in row[0].lower()
                   for row in _table(doc, "configuration").rows)
    texts = {p.key: p.text for p in doc.paragraphs()}
    assert COMPUTE_ONLY in texts["configuration"] and COMPUTE_ONLY in texts["schedule"]


def test_a_design_with_storage_keeps_its_storage_columns_and_chart() -> None:
    doc = build_document(_facts(storage=True))
    assert "plannable storage (TB)" in _table(doc, "schedule").columns
    assert "capacity_storage" in [f.key for f in doc.figures()]
    assert COMPUTE_ONLY not in " ".join(p.text for p in doc.paragraphs())


def _forecast(role: str, years: range) -> dict[str, Any]:
    return {"id": 3, "series": "nexus / all departments / core-hours per month", "family": "combined",
            "selection": "combination", "reason": "median", "units": "core-hours", "year_units": "core-hours per year",
            "history_from": "2014-01-01", "through": "2019-12-01", "role": role,
            "yearly": [{"year": y, "periods_observed": 0, "periods_forecast": 12, "p10": y * 1e4, "median": y * 2e4,
                        "p90": y * 3e4} for y in years]}


def _projection(facts: dict[str, Any]) -> str:
    return next(p.text for p in build_document(facts).paragraphs() if p.key == "projections")


def test_a_projection_is_quoted_inside_the_design_years_or_said_to_miss_them() -> None:
    facts = _facts()
    facts["forecast"] = _forecast("design", range(2020, 2025))
    text = _projection(facts)
    assert "By 2022, within the design's years (2021-2022), the median projection is 40.4 M" in text
    assert "The forecast runs on to 2024, past the design's last year." in text and "By 2024" not in text
    facts["forecast"] = _forecast("context", range(2030, 2033))
    text = _projection(facts)
    assert text.startswith("Shown as context, not part of this design's demand")
    assert "Its projection (2030-2032) starts after the design's last year (2021-2022)" in text


def test_the_chance_table_heads_its_columns_with_the_designs_labels_not_raw_keys() -> None:
    facts = copy.deepcopy(_facts(storage=True))
    facts["chance"] = {"ref": "design-7", "n_paths": 500, "sources": ["typed-in figures"],
                       "years": [{"year": 2022, "all": 0.9, "by": {"core_hours": 0.95, "flash_tb": 1.0,
                                                                   "genomes_per_day": 0.9, "storage_tb": 0.92}}]}
    doc = build_document(facts)
    assert _table(doc, "chance").columns == ["year", "all constraints", "Core-hours", "Flash (TB)", "Genomes/day",
                                             "Storage (TB)"]
    html = render_html(doc)
    assert [k for k in ("core_hours", "flash_tb", "genomes_per_day", "storage_tb") if k in html] == []


def test_a_plan_beside_the_forecast_a_design_links_is_context_and_says_where_the_demand_comes_from() -> None:
    facts = _facts()
    facts["forecast"] = _forecast("design", range(2020, 2023))
    facts["sequencer_plan"] = {
        "plan": 2, "name": "ggs sequencing", "version": 1, "role": "context", "convention": "raw",
        "convention_text": "core-hours on the plan's reference core, AMD Opteron 6276 (Interlagos) at 2.3 GHz",
        "years": [{"year": y, "instruments_end": 4.0, "samples": 600.0, "genomes_per_day_peak": 0.1,
                   "core_hours_ref": 2e6, "new_tb": 40.0, "stored_pb": 0.03} for y in range(2014, 2025)]}
    text = next(p.text for p in build_document(facts).paragraphs() if p.key == "sequencer_plan")
    assert text.startswith("Shown as context, not part of this design's demand: the design does not link this "
                           "sequencer plan, and its demand is the forecast it links.")
    assert "In 2022, the design's last year it covers, it needs 2.0 M core-hours a year" in text
    assert "The plan runs on to 2024, past the design's last year (2022)." in text


def test_the_forecasts_members_are_named_in_words_not_engine_codes() -> None:
    from planner.reports.projections import plain_method

    text = plain_method("median of 3 of 11 members (ets_damped_orig, dotm, rwd_log) by backtest MASE")
    assert text == ("median of 3 of 11 members (damped ETS on the original scale, dynamic optimised Theta, "
                    "random walk with drift on the log scale) by backtest MASE")
    assert plain_method("pinned: theta") == "pinned: Theta" and plain_method("thetas, etsy") == "thetas, etsy"


def test_the_capacity_basis_names_the_reference_core_s_clock() -> None:
    """The summary and the configuration table say which core the core-hours are counted on (facts kept before
    the clock was recorded still read "on the reference core", as above)."""
    facts = _facts()
    facts["design"]["configuration"]["reference_core_ghz"] = 2.3
    doc = build_document(facts)
    assert "45.5 M core-hours a year at the 85% utilisation target, on the 2.3 GHz reference core" in \
        doc.paragraphs()[0].text
    conf = dict(_table(doc, "configuration").rows)
    assert conf["Core-hours a year at the 85% utilisation target, on the 2.3 GHz reference core (millions)"] == "45.5"
