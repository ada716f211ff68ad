"""What every section builder shares: the facts, the narrative overrides, the references (pure: no Django).

Split from ``sections.py`` so the section modules (``projections.py``, ``supply.py``) can take the same
builder without importing each other.
"""

from __future__ import annotations

from typing import Any

from planner.designs.labels import constraint_label
from planner.reports.document import Paragraph, Reference

# A constraint as a running sentence names it ("compute in 2019 (... short)"); headers use the designs'
# own labels (planner.designs.labels.constraint_label), so no report shows a raw key such as storage_tb.
CHECK_NAMES = {"core_hours": "compute", "genomes_per_day": "genomes/day", "storage_tb": "online storage",
               "flash_tb": "flash for a week of ingest", "metadata_files": "metadata (files)",
               "bandwidth_gbps": "bandwidth", "ingest_gbps": "storage throughput for the ingest",
               "budget_usd": "budget"}


class Builder:
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


def usage_refs(f: dict[str, Any]) -> list[str]:
    return [f"ingest-{r['id']}" for r in f.get("ingest_runs", [])]


def check_name(name: str) -> str:
    """A constraint inside a sentence ("online storage"); an unknown one as the designs label it."""
    return CHECK_NAMES.get(name) or constraint_label(name).lower()


def period_text(f: dict[str, Any]) -> str:
    """Months, as usage is counted: "2021-11 to 2026-10"."""
    p = f.get("period") or {}
    return f"{str(p.get('start', '?'))[:7]} to {str(p.get('end', '?'))[:7]}"
