"""Catalog input: prices with sources, bad numbers rejected with their path, syntax errors in one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from planner.hardware.catalog import CatalogError, catalog_from_dict, load_catalog

CATALOG = Path(__file__).resolve().parents[3] / "fixtures" / "catalog.yaml"


def test_every_price_names_its_source_and_date() -> None:
    cat = load_catalog(CATALOG)
    for item in [*cat.node_types.values(), *cat.storage_systems.values()]:
        assert item.price_source and re.match(r"^\d{4}(-\d{2})?$", item.price_date), item.name


def test_one_clock_per_node_type_in_catalog_and_sequencer_plan() -> None:
    cat = load_catalog(CATALOG)
    plan = yaml.safe_load((CATALOG.parent / "minerva_sequencer_plan.yaml").read_text())
    assert plan["node_types"]["amd_interlagos"]["clock_ghz"] == cat.node("amd-interlagos").base_clock_ghz == 2.3
    assert plan["node_types"]["ivy_bridge"]["clock_ghz"] == cat.node("ivy-bridge").base_clock_ghz == 3.5


@pytest.mark.parametrize(("section", "field", "value", "message"), [
    ("node_types", "price_usd", -6500, "node_types[1].price_usd: must be > 0, got -6500"),
    ("node_types", "cores_per_node", 0, "node_types[1].cores_per_node: must be > 0, got 0"),
    ("storage_systems", "usable_tb", 0, "storage_systems[1].usable_tb: must be > 0, got 0"),
    ("storage_systems", "price_usd", 0, "storage_systems[1].price_usd: must be > 0, got 0"),
    ("storage_systems", "power_w", -1, "storage_systems[1].power_w: must be >= 0, got -1"),
    # YAML's .inf and .nan are floats: an infinite price or a NaN capacity must not reach the optimiser
    ("node_types", "price_usd", float("inf"), "node_types[1].price_usd: expected a finite number, got inf"),
    ("node_types", "memory_gb", float("nan"), "node_types[1].memory_gb: expected a finite number, got nan"),
    ("storage_systems", "throughput_gbps", float("inf"),
     "storage_systems[1].throughput_gbps: expected a finite number, got inf"),
])
def test_negative_or_zero_prices_counts_and_capacities_are_rejected(section: str, field: str, value: float,
                                                                     message: str) -> None:
    data = yaml.safe_load(CATALOG.read_text())
    data[section][1][field] = value
    with pytest.raises(CatalogError) as exc:
        catalog_from_dict(data)
    assert str(exc.value) == message


def test_yaml_syntax_error_is_one_line_with_file_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "catalog.yaml"
    bad.write_text("node_types:\n  - {name: x, cores_per_node: 12\nstorage_systems: []\n")
    with pytest.raises(CatalogError) as exc:
        load_catalog(bad)
    assert re.fullmatch(rf"{re.escape(str(bad))}:\d+:\d+: YAML syntax error: .+", str(exc.value))
