"""A site the product has not seen (QA, session 25): its own node types, prices and storage, no
benchmark rows typed into its catalog. The design engine must take its per-genome figures from the
performance model (node width, memory, flash size and storage speed), not from typed-in figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from planner.designs.capacity import evaluate_design
from planner.designs.scenario import ScenarioError, load_scenario

BENCH = Path(__file__).resolve().parent.parent / "fixtures" / "benchmarks" / "genomics.yaml"


def _node(name: str, cores: int, ghz: float, mem: float, price: float) -> dict[str, Any]:
    return {"name": name, "cpu_model": name, "sockets": 2, "cores_per_node": cores, "base_clock_ghz": ghz,
            "all_core_clock_ghz": ghz, "arch_factor": 1.0, "memory_gb": mem, "local_flash_tb": 0, "gpus": 0,
            "price_usd": price, "power_w": 400, "rack_units": 1, "support_pct_per_year": 5,
            "lifetime_years": 5, "first_year": 2020, "flops_per_cycle_per_core": 16}


def _storage(name: str, kind: str, usable: float, price: float, gbps: float, iops: float) -> dict[str, Any]:
    return {"name": name, "kind": kind, "raw_tb": usable * 1.25, "usable_tb": usable, "price_usd": price,
            "power_w": 1000, "throughput_gbps": gbps, "metadata_iops": iops, "support_pct_per_year": 8,
            "lifetime_years": 5, "first_year": 2020}


CATALOG = {
    "performance_model": str(BENCH),
    "node_types": [
        _node("zen-wide", 96, 2.4, 768, 21000), _node("gold-mid", 32, 3.0, 256, 11000),
        _node("atom-narrow", 2, 3.0, 64, 500), _node("lowmem-dense", 64, 2.8, 8, 6000),
    ],
    "storage_systems": [
        _storage("nvme-scratch", "flash", 48, 120000, 25, 500000),
        _storage("mini-flash", "flash", 1.5, 4000, 3, 100000),
        _storage("bulk-disk", "disk", 1800, 280000, 30, 20000),
        _storage("slow-nas", "disk", 1000, 90000, 0.05, 5000),
    ],
    "benchmarks": [],
}


def _demand(scale: float = 1.0) -> list[dict[str, Any]]:
    rows = [(2021, 12, 3), (2022, 18, 4.5), (2023, 25, 6)]
    return [{"year": y, "core_hours": 2.0e6 * scale, "storage_tb": 900 * scale, "genomes_per_day": g * scale,
             "ingest_tb_per_day": i * scale, "files": 1e8} for y, g, i in rows]


def scenario(tmp_path: Path, **over: Any) -> dict[str, Any]:
    (tmp_path / "cat.yaml").write_text(yaml.safe_dump(CATALOG), encoding="utf-8")
    data: dict[str, Any] = {
        "name": "Lakeshore", "catalog": "cat.yaml", "pipeline": "GATK 3.1.1 WGS",
        "horizon": {"start_year": 2021, "end_year": 2023},
        "reference_core": {"clock_ghz": 3.0, "arch_factor": 1.0},
        "existing": [{"storage_system": "bulk-disk", "count": 1, "purchase_year": 2020}],
        "purchases": [], "demand": _demand(),
        "constraints": {"utilisation_target": 0.8, "flash_days": 3, "flash_system": "nvme-scratch",
                        "genomics_share": 0.7, "turnaround_hours": 36},
    }
    data.update(over)
    return data


def load(tmp_path: Path, data: dict[str, Any]) -> Any:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return load_scenario(path)


def test_a_catalog_without_typed_benchmarks_is_planned_with_the_performance_model(tmp_path: Path) -> None:
    sc = load(tmp_path, scenario(tmp_path, purchases=[{"year": 2021, "node_type": "gold-mid", "count": 40},
                                                      {"year": 2021, "flash_tb": 96}]))
    ev = evaluate_design(sc.design, sc.catalog)
    assert ev.years[0].genomes_per_day_capacity > 0


def test_an_unknown_pipeline_is_still_refused_with_the_known_ones(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as exc:
        load(tmp_path, scenario(tmp_path, pipeline="GATK 9 WGS"))
    assert "pipeline: no benchmark or performance model for pipeline 'GATK 9 WGS'" in str(exc.value)
    assert "GATK 3.1.1 WGS" in str(exc.value)


def _demand_ingest(tb_per_day: float) -> list[dict[str, Any]]:
    return [{"year": y, "core_hours": 1.0e6, "storage_tb": 700, "genomes_per_day": 5,
             "ingest_tb_per_day": tb_per_day, "files": 1e7} for y in (2021, 2022, 2023)]


def test_storage_too_slow_for_the_ingest_fails_the_ingest_constraint(tmp_path: Path) -> None:
    # two slow-nas units write 0.1 GB/s; 12 TB a day arrive at 12,000 / 86,400 = 0.139 GB/s
    sc = load(tmp_path, scenario(
        tmp_path, existing=[{"storage_system": "slow-nas", "count": 2, "purchase_year": 2020}],
        purchases=[{"year": 2021, "node_type": "gold-mid", "count": 40}], demand=_demand_ingest(12),
        constraints={"flash_days": 0, "genomics_share": 0.7, "flash_system": "nvme-scratch"}))
    ev = evaluate_design(sc.design, sc.catalog)
    short = [c for c in ev.failures if c.name == "ingest_gbps"]
    assert [c.year for c in short] == [2021, 2022, 2023]
    assert short[0].required == pytest.approx(12 * 1000 / 86400)
    assert short[0].available == pytest.approx(0.1)
    ok = load(tmp_path, scenario(
        tmp_path, existing=[{"storage_system": "slow-nas", "count": 2, "purchase_year": 2020}],
        purchases=[{"year": 2021, "node_type": "gold-mid", "count": 40}], demand=_demand_ingest(6),
        constraints={"flash_days": 0, "genomics_share": 0.7, "flash_system": "nvme-scratch"}))
    assert not [c for c in evaluate_design(ok.design, ok.catalog).failures if c.name == "ingest_gbps"]


def test_the_optimiser_does_not_buy_storage_too_slow_for_the_ingest(tmp_path: Path) -> None:
    from planner.designs.scenario import optimize_scenario

    data = scenario(tmp_path, existing=[], demand=_demand_ingest(20),
                    constraints={"flash_days": 0, "genomics_share": 0.7, "flash_system": "nvme-scratch"},
                    optimize={"node_types": ["gold-mid"], "storage_systems": ["slow-nas", "bulk-disk"],
                              "time_limit_s": 20})
    path = tmp_path / "opt.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    res = optimize_scenario(path, time_limit_s=20)
    assert res.status in ("optimal", "gap"), res.message
    ev = res.evaluation
    for y in ev.years:
        assert y.bandwidth_gbps >= 20 * 1000 / 86400
    assert ev.feasible


def test_the_why_card_says_whether_memory_was_checked_and_shows_memory_per_core(tmp_path: Path) -> None:
    from planner.designs.capacity import pipeline_model
    from planner.designs.explain import explain_year

    sc = load(tmp_path, scenario(tmp_path, purchases=[{"year": 2021, "node_type": "lowmem-dense", "count": 10},
                                                      {"year": 2021, "flash_tb": 96}]))
    ev = evaluate_design(sc.design, sc.catalog)
    pm = pipeline_model(sc.design, sc.catalog)
    why = explain_year(sc.design, sc.catalog, pm, ev.years[0])
    lowmem = next(o for o in why["options"] if o.node == "lowmem-dense")
    assert lowmem.memory_gb_per_core == pytest.approx(8 / 64)
    # GATK 3.1.1 in the benchmark file gives no memory per job slot: an 8 GB, 64-core node is planned as if
    # memory were no limit, and the card must say so rather than rank it cheapest in silence
    assert "Memory is not checked" in why["memory_note"]
    assert "lowmem-dense (0.125 GB a core): less memory per core than any node" in why["memory_note"]
    assert "(4 GB a core)" in why["memory_note"]  # Interlagos: 256 GB / 64 cores, the least benchmarked
    assert "zen-wide" not in why["memory_note"] and "gold-mid" not in why["memory_note"]  # 8 GB a core each


def test_a_site_catalog_gets_the_same_storage_rates_as_the_catalog_holding_the_benchmarked_systems(
        tmp_path: Path) -> None:
    from planner.hardware.catalog import load_catalog
    from planner.hardware.design_model import PipelineModel

    (tmp_path / "cat.yaml").write_text(yaml.safe_dump(CATALOG), encoding="utf-8")
    site = PipelineModel(load_catalog(tmp_path / "cat.yaml"), "GATK 3.1.1 WGS")
    reference = PipelineModel(load_catalog(Path(__file__).resolve().parent.parent / "fixtures" / "catalog.yaml"),
                              "GATK 3.1.1 WGS")
    # the fitted/catalog ratio of flash-gss (and of the disks) does not depend on whether the site lists them
    assert site.tier("nvme-scratch").unit.fast_kiops == pytest.approx(500 * reference._kind_ratio["flash"])
    assert site.tier("bulk-disk").unit.slow_kiops == pytest.approx(20 * reference._kind_ratio["disk"])
    assert "x 0.29" in site.tier("nvme-scratch").rule
