"""A cluster's capacity records as a design's existing nodes (planner.designs.inventory, pure)."""

from __future__ import annotations

from datetime import date

import pytest

from planner.designs.inventory import CapacityStep, existing_nodes, node_type_of

NEXUS = [CapacityStep(date(2014, 1, 1), 1536, "initial purchase"), CapacityStep(date(2015, 7, 1), 2560, "expansion"),
         CapacityStep(date(2017, 3, 1), 3584, "expansion")]


def test_each_increase_is_bought_in_its_year_in_whole_nodes() -> None:
    inv = existing_nodes(NEXUS, "amd-interlagos", 64, 5, 2018)
    assert [(e["purchase_year"], e["count"]) for e in inv.existing] == [(2014, 24), (2015, 16), (2017, 16)]
    assert inv.cores == 3584 and inv.not_whole == []
    assert all(e["node_type"] == "amd-interlagos" for e in inv.existing)
    assert inv.existing[0]["note"] == "initial purchase"
    assert all("lifetime_years" not in e for e in inv.existing)  # 2014 + 5 > 2018: the catalog's lifetime holds


def test_nodes_still_running_are_kept_through_the_first_design_year() -> None:
    inv = existing_nodes(NEXUS, "amd-interlagos", 64, 5, 2020)
    life = {e["purchase_year"]: e.get("lifetime_years") for e in inv.existing}
    # bought 2014 and 2015, retired by the catalog's 5 years before 2020, but the records show them running
    assert life == {2014: 7, 2015: 6, 2017: None}
    for e in inv.existing:  # each one active in 2020: year <= 2020 < year + lifetime
        assert e["purchase_year"] + (e.get("lifetime_years") or 5) > 2020


def test_a_decrease_retires_the_oldest_nodes_first() -> None:
    steps = [*NEXUS, CapacityStep(date(2018, 6, 1), 2048, "retired the 2014 nodes")]
    inv = existing_nodes(steps, "amd-interlagos", 64, 5, 2019)
    assert [(e["purchase_year"], e["count"]) for e in inv.existing] == [(2015, 16), (2017, 16)]
    assert inv.cores == 2048
    partial = existing_nodes([*NEXUS, CapacityStep(date(2018, 6, 1), 3072, "")], "amd-interlagos", 64, 5, 2019)
    assert [(e["purchase_year"], e["count"]) for e in partial.existing] == [(2014, 16), (2015, 16), (2017, 16)]


def test_records_from_the_first_design_year_on_are_left_to_the_design() -> None:
    inv = existing_nodes([*NEXUS, CapacityStep(date(2020, 3, 1), 5000, "")], "amd-interlagos", 64, 5, 2020)
    assert inv.cores == 3584


def test_a_step_that_is_not_whole_nodes_is_rounded_and_named() -> None:
    inv = existing_nodes(NEXUS, "xeon-e5-2697v4", 36, 5, 2018)
    assert [e["count"] for e in inv.existing] == [43, 28, 28]  # 1536/36 = 42.7, 1024/36 = 28.4
    assert inv.not_whole == ["2014-01-01: +1,536 cores", "2015-07-01: +1,024 cores", "2017-03-01: +1,024 cores"]


def test_bad_widths_are_refused() -> None:
    with pytest.raises(ValueError):
        existing_nodes(NEXUS, "x", 0, 5, 2018)


def test_the_node_type_is_guessed_only_when_exactly_one_is_as_wide() -> None:
    widths = {"amd-interlagos": 64, "ivy-bridge": 12, "haswell": 12}
    assert node_type_of(3584, 56, widths) == "amd-interlagos"
    assert node_type_of(1200, 100, widths) is None  # two 12-core types
    assert node_type_of(1000, 3, widths) is None  # not a whole number of cores a node
    assert node_type_of(3584, 0, widths) is None  # nodes not recorded


def test_file_systems_become_whole_storage_units_bought_when_first_scanned_and_kept_through_the_first_year() -> None:
    from planner.designs.inventory import FileSystemRecord, existing_storage

    records = [FileSystemRecord("work", 1500.0, date(2014, 3, 1)),  # 2 units exactly
               FileSystemRecord("scratch", 400.0, date(2019, 6, 1)),  # 0.53 units: 1, named
               FileSystemRecord("never", 900.0, None),  # never scanned: the year before the design's first
               FileSystemRecord("empty", 0.0, date(2019, 1, 1))]  # no capacity: not owned storage
    existing, not_whole = existing_storage(records, "ddn-sfa10k", 750.0, 5, 2021)
    assert existing == [
        {"storage_system": "ddn-sfa10k", "count": 2, "purchase_year": 2014, "lifetime_years": 8,
         "note": "file system work (1,500 TB usable recorded)"},  # 2014 + 5 <= 2021: kept through 2021
        {"storage_system": "ddn-sfa10k", "count": 1, "purchase_year": 2019,
         "note": "file system scratch (400 TB usable recorded)"},
        {"storage_system": "ddn-sfa10k", "count": 1, "purchase_year": 2020,
         "note": "file system never (900 TB usable recorded)"},
    ]
    assert not_whole == ["scratch: 400 TB = 0.53 units of 750 TB", "never: 900 TB = 1.20 units of 750 TB"]
    # a file system first scanned in or after the first year was running before the records began: bought before
    later, _ = existing_storage([FileSystemRecord("new", 750.0, date(2022, 1, 1))], "x", 750.0, 5, 2021)
    assert later[0]["purchase_year"] == 2020
    with pytest.raises(ValueError):
        existing_storage(records, "x", 0.0, 5, 2021)


def test_genomics_applies_where_a_year_checks_genomes_or_asks_for_them() -> None:
    from planner.designs.labels import genomics_applies

    check = {"name": "genomes_per_day", "passed": True}
    storage = {"name": "storage_tb", "passed": True}
    assert genomics_applies([{"checks": [storage], "genomes_per_day_demand": 0, "genomes_per_day_capacity": 25}]) \
        is False  # a capacity nobody asked about
    assert genomics_applies([{"checks": [storage, check], "genomes_per_day_demand": 0}])  # checked, even at 0
    assert genomics_applies([{"checks": [storage], "genomes_per_day_demand": 0},
                             {"checks": [storage], "genomes_per_day_demand": 12.5}])  # asked for in one year
    assert genomics_applies([]) is False and genomics_applies(None) is False
