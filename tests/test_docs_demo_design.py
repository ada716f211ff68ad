"""The docs describe the demo's design for nexus as its own page does since 769c794: which of its owned nodes
retire inside the horizon and when. The sentence is made here as the product makes it, from the demo's capacity
records (forecasts.accounting.demo.CAPACITY) and the catalog's amd-interlagos row, and both docs/uncertainty.md
and the README's demo tour must give the same figures."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_the_docs_say_when_the_demo_designs_own_nodes_retire_as_its_page_does() -> None:
    from forecasts.accounting.demo import CAPACITY, END
    from planner.designs.inventory import CapacityStep, existing_nodes
    from planner.designs.services_paths import retirements

    catalog = yaml.safe_load((ROOT / "fixtures" / "catalog.yaml").read_text())
    row = next(n for n in catalog["node_types"] if n["name"] == "amd-interlagos")
    start = END.year  # the logs end with 2019: the forecast's first whole future year, the design's first
    inv = existing_nodes([CapacityStep(day, cores, note) for day, cores, _nodes, note in CAPACITY], row["name"],
                         row["cores_per_node"], row["lifetime_years"], start)
    said = retirements(inv.existing, row["lifetime_years"], start, start + 2)
    found = re.search(r"Of these, (.*?) \(the catalog's (\d+)-year life", said)
    assert found, said
    retire, life = found.group(1), found.group(2)
    assert retire == "40 nodes retire at the end of 2020 and 16 at the end of 2021"  # what the docs were checked on
    owned = [sum(e["count"] for e in inv.existing
                 if e["purchase_year"] + e.get("lifetime_years", row["lifetime_years"]) > y) * row["cores_per_node"]
             for y in range(start, start + 3)]
    docs = " ".join((ROOT / "docs" / "uncertainty.md").read_text().split())
    assert f"catalog's {life}-year life, kept through {start}" in docs and retire in docs
    assert f"owns {owned[0]:,} cores in {start}, {owned[1]:,} in {start + 1} and none in {start + 2}" in docs
    assert owned[2] == 0
    tour = " ".join((ROOT / "README.md").read_text().split("## The demo in five minutes")[1].split("\n## ")[0].split())
    nodes = sum(e["count"] for e in inv.existing)
    assert f"owns nexus's {nodes} nodes, of which {retire.replace(' nodes retire', ' retire')}" in tour
