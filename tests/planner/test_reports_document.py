"""The document model and its assembly, without a database: missing inputs are said plainly, edits win."""

from __future__ import annotations

from typing import Any

from planner.reports.document import Document
from planner.reports.sections import NO_STORAGE, NO_WORKLOAD, build_document


def _facts() -> dict[str, Any]:
    year = {"year": 2015, "cores": 100, "normalised_core_hours_at_target": 5e5, "demand_core_hours": 4e5,
            "plannable_tb": 80.0, "demand_tb": 50.0, "genomes_per_day_capacity": 3.0, "genomes_per_day_demand": 2.0,
            "capex_usd": 1e5, "opex_usd": 1e4, "checks": [{"name": "core_hours", "passed": True}]}
    return {
        "institution": {"name": "Test Institute"}, "cluster": "c1", "period": {"start": "2024-01-01",
                                                                               "end": "2024-12-01"},
        "usage": {"jobs": 10, "core_hours": 1000.0, "users": 3, "projects": 2, "departments": 2, "months": 12,
                  "utilisation": 0.5, "capacity_core_hours": 2000.0, "monthly": [], "yearly": [],
                  "by_department": [], "growth": None},
        "ingest_runs": [{"id": 7}], "workload": None, "storage": None, "forecast": None, "sequencer_plan": None,
        "benchmarks": {"pipeline": "P", "rows": [], "comparisons": []},
        "design": {"id": 1, "name": "D", "evaluation_id": 2, "start_year": 2015, "end_year": 2015,
                   "evaluation": {"capex_usd": 1e5, "opex_usd": 1e4, "tco_usd": 1.1e5, "npv_usd": 1.1e5,
                                  "feasible": True, "failures": [], "years": [year]},
                   "configuration": {"year": 2015, "cores": 100, "nodes": 10, "memory_tb": 1.0, "peak_tf": 3.0,
                                     "core_hours_available": 8.5e5, "raw_pb": 0.1, "usable_pb": 0.08,
                                     "flash_tb": 0.0, "bandwidth_gbps": 5.0, "schedulable_hours": 8544,
                                     "maintenance_days": 9.0, "fullness_limit": 0.8},
                   "node_types": [], "purchases": [], "assumptions": ["An assumption."], "derivations": {}},
        "references": [{"key": "ingest-7", "kind": "ingest run", "label": "Ingest run #7", "detail": ""},
                       {"key": "eval-2", "kind": "design evaluation", "label": "Evaluation #2", "detail": ""},
                       {"key": "design-1", "kind": "design", "label": "Design #1", "detail": ""}],
    }


def test_without_scans_the_storage_section_says_so_instead_of_inventing_numbers() -> None:
    doc = build_document(_facts())
    storage = next(s for s in doc.sections if s.key == "storage")
    assert [b.type for b in storage.blocks] == ["paragraph"]
    assert storage.blocks[0].text == NO_STORAGE and "No storage scans loaded" in NO_STORAGE
    workload = next(s for s in doc.sections if s.key == "workload")
    assert workload.blocks[0].text == NO_WORKLOAD


def test_sections_tables_and_figures_are_numbered_in_reading_order() -> None:
    doc = build_document(_facts())
    assert [s.number for s in doc.sections] == list(range(1, len(doc.sections) + 1))
    assert [t.number for t in doc.tables()] == list(range(1, len(doc.tables()) + 1))
    assert doc.sections[-1].title.startswith("Appendix")


def test_a_narrative_edit_replaces_the_generated_paragraph_and_is_marked() -> None:
    doc = build_document(_facts(), {"summary": "Our own words."})
    summary = doc.paragraphs()[0]
    assert summary.key == "summary" and summary.text == "Our own words." and summary.edited


def test_numbers_in_the_summary_cite_their_ingest_run_and_evaluation() -> None:
    doc = build_document(_facts())
    summary = doc.paragraphs()[0]
    assert "10 jobs" in summary.text and "50% utilisation" in summary.text
    assert summary.refs == ["ingest-7", "eval-2"]
    assert {r.key for r in doc.references} >= {"ingest-7", "eval-2"}


def test_the_document_round_trips_through_json() -> None:
    doc = build_document(_facts())
    again = Document.from_dict(doc.to_dict())
    assert again.to_dict() == doc.to_dict()


def test_every_constraint_the_designs_check_has_a_name_in_the_report_s_sentences() -> None:
    """A check added to the designs (the ingest's storage throughput) reads in words in a report sentence,
    not as its fallback 'ingest (gb/s)'."""
    from planner.designs.labels import CHECK_LABELS
    from planner.reports.builder import CHECK_NAMES, check_name

    assert set(CHECK_LABELS) <= set(CHECK_NAMES)
    assert check_name("ingest_gbps") == "storage throughput for the ingest"
