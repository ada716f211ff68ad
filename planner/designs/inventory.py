"""A cluster's recorded capacity as a design's existing inventory (pure core).

A design started from a cluster's forecast starts from what the cluster has: its capacity records
(dated core counts: the first purchase, expansions, retirements) become ``existing`` entries of the
one catalog node type the planner names. Each increase is bought in the year it took effect, in whole
nodes (the nearest count; a step that is not a whole number of nodes is named so the planner can
check it); each decrease retires the oldest nodes first. Records dated in or after the design's
first year are left to the design. Nodes the records show still in service are kept at least
through the design's first year: the catalog's lifetime is an assumption, the records are what
the cluster runs, and the planner can shorten it in the scenario.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any


@dataclass(frozen=True, slots=True)
class CapacityStep:
    effective_from: date
    cores: int
    note: str = ""


@dataclass(frozen=True, slots=True)
class Inventory:
    existing: list[dict[str, Any]]  # scenario ``existing`` entries
    cores: int  # the cores in service before the design's first year
    not_whole: list[str]  # steps that were not a whole number of nodes, e.g. "2015-07-01: +1,000 cores"


def existing_nodes(steps: Iterable[CapacityStep], node_type: str, cores_per_node: int, lifetime_years: int,
                   start_year: int) -> Inventory:
    """The capacity ``steps`` before ``start_year`` as ``existing`` entries of ``node_type``."""
    if cores_per_node <= 0 or lifetime_years <= 0:
        raise ValueError("cores_per_node and lifetime_years must be positive")
    lots: list[list[Any]] = []  # [purchase year, nodes, note], oldest first
    previous = 0
    not_whole: list[str] = []
    for step in sorted(steps, key=lambda s: s.effective_from):
        if step.effective_from.year >= start_year:
            break
        delta, previous = step.cores - previous, step.cores
        nodes = round(abs(delta) / cores_per_node)
        if nodes * cores_per_node != abs(delta):
            not_whole.append(f"{step.effective_from.isoformat()}: {delta:+,} cores")
        if delta > 0 and nodes:
            lots.append([step.effective_from.year, nodes, step.note])
        for lot in lots if delta < 0 else []:  # retire the oldest first
            taken = min(lot[1], nodes)
            lot[1] -= taken
            nodes -= taken
    existing = []
    for year, count, note in lots:
        if count <= 0:
            continue
        entry: dict[str, Any] = {"node_type": node_type, "count": count, "purchase_year": year}
        if year + lifetime_years <= start_year:  # the records show it running: kept through start_year
            entry["lifetime_years"] = start_year - year + 1
        if note:
            entry["note"] = note
        existing.append(entry)
    return Inventory(existing, sum(e["count"] for e in existing) * cores_per_node, not_whole)


def retiring(existing: Iterable[dict[str, Any]], lifetime_years: int, end_year: int) -> dict[int, int]:
    """Per year before ``end_year``, how many owned units (``existing`` entries) leave service at its end: each
    entry's own ``lifetime_years`` or the catalog's, from its purchase year."""
    by_year: dict[int, int] = {}
    for e in existing:
        last = e["purchase_year"] + e.get("lifetime_years", lifetime_years) - 1
        if last < end_year:
            by_year[last] = by_year.get(last, 0) + e["count"]
    return dict(sorted(by_year.items()))


def node_type_of(cores: int, nodes: int, widths: dict[str, int]) -> str | None:
    """The one catalog node type (name -> cores per node) as wide as the cluster's nodes, else None."""
    if nodes <= 0 or cores % nodes:
        return None
    matches = [name for name, width in widths.items() if width == cores // nodes]
    return matches[0] if len(matches) == 1 else None


@dataclass(frozen=True, slots=True)
class FileSystemRecord:
    name: str
    capacity_tb: float  # usable TB recorded
    first_scanned: date | None  # the records show it running since then (None: never scanned)


def existing_storage(file_systems: Iterable[FileSystemRecord], system: str, usable_tb: float, lifetime_years: int,
                     start_year: int) -> tuple[list[dict[str, Any]], list[str]]:
    """The scanned file systems as ``existing`` entries of the catalog storage ``system``: per file system, the
    nearest whole number of units to its recorded usable TB (at least one), bought in the year it was first
    scanned (the earliest the records show it; the year before ``start_year`` when never scanned) and, like
    nodes the records show running, kept at least through ``start_year``. Also the file systems whose capacity
    is not a whole number of units, e.g. "work: 600 TB = 0.8 units of 750 TB", for the planner to check."""
    if usable_tb <= 0 or lifetime_years <= 0:
        raise ValueError("usable_tb and lifetime_years must be positive")
    existing, not_whole = [], []
    for fs in file_systems:
        if fs.capacity_tb <= 0:
            continue
        units = fs.capacity_tb / usable_tb
        count = max(1, round(units))
        if abs(count - units) > 1e-6:
            not_whole.append(f"{fs.name}: {fs.capacity_tb:,.0f} TB = {units:.2f} units of {usable_tb:,.0f} TB")
        year = min(fs.first_scanned.year if fs.first_scanned else start_year - 1, start_year - 1)
        entry: dict[str, Any] = {"storage_system": system, "count": count, "purchase_year": year,
                                 "note": f"file system {fs.name} ({fs.capacity_tb:,.0f} TB usable recorded)"}
        if year + lifetime_years <= start_year:
            entry["lifetime_years"] = start_year - year + 1
        existing.append(entry)
    return existing, not_whole
