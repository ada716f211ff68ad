"""The per-genome cost model reproduces the Minerva (seed 000) and Dell EMC (seed 001) numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.hardware.catalog import load_catalog
from planner.hardware.costmodel import CostModel, speedup

CATALOG = Path(__file__).resolve().parents[2] / "fixtures" / "catalog.yaml"
GATK = "GATK 3.1.1 WGS"
DELL = "BWA + GATK 3.6 10x WGS"


@pytest.fixture(scope="module")
def model() -> CostModel:
    return CostModel(load_catalog(CATALOG))


@pytest.mark.parametrize(
    ("node", "storage", "cpu_hours", "wall_core_hours"),
    [
        ("amd-interlagos", "ddn-sfa10k", 1247, 2702),
        ("amd-interlagos", "flash-gss", 1182, 1412),
        ("ivy-bridge", "flash-gss", 471, 562),
    ],
)
def test_minerva_benchmarks_reproduced(model: CostModel, node: str, storage: str, cpu_hours: int,
                                       wall_core_hours: int) -> None:
    cpu = model.cpu_hours_per_sample(GATK, node, storage)
    wall = model.wall_core_hours_per_sample(GATK, node, storage)
    assert cpu.value == cpu_hours
    assert wall.value == wall_core_hours
    assert wall.rule.startswith(f"benchmark: {GATK} on {node}/{storage} (Kovatch 2015")


def test_speedups_and_efficiency(model: CostModel) -> None:
    def w(n: str, s: str) -> float:
        return model.wall_core_hours_per_sample(GATK, n, s).value

    def c(n: str, s: str) -> float:
        return model.cpu_hours_per_sample(GATK, n, s).value

    assert round(speedup(c("amd-interlagos", "flash-gss"), c("ivy-bridge", "flash-gss")), 2) == 2.51
    assert round(speedup(w("amd-interlagos", "ddn-sfa10k"), w("amd-interlagos", "flash-gss")), 2) == 1.91
    assert round(speedup(w("amd-interlagos", "ddn-sfa10k"), w("ivy-bridge", "flash-gss")), 1) == 4.8
    # storage alone: only 5 % less CPU time
    assert round(1 - c("amd-interlagos", "flash-gss") / c("amd-interlagos", "ddn-sfa10k"), 2) == 0.05
    assert round(model.cpu_efficiency("ddn-sfa10k").value, 2) == 0.46
    assert round(model.cpu_efficiency("flash-gss").value, 2) == 0.84


def test_scaled_node_carries_rule(model: CostModel) -> None:
    cpu = model.cpu_hours_per_sample(GATK, "haswell", "flash-gss")
    assert cpu.value == pytest.approx(471 * 3.5 / 2.4)
    assert cpu.rule.startswith("scaled from ivy-bridge by clock 3.5->2.4 GHz x arch 1.0/1.0")
    wall = model.wall_core_hours_per_sample(GATK, "haswell", "flash-gss")
    assert wall.value == pytest.approx(cpu.value / model.cpu_efficiency("flash-gss").value)
    assert "efficiency" in wall.rule


def test_narrow_node_on_disk_uses_disk_efficiency(model: CostModel) -> None:
    wall = model.wall_core_hours_per_sample(GATK, "ivy-bridge", "ddn-sfa10k")
    assert wall.value == pytest.approx(471 * 2702 / 1247)
    assert "storage-independent" in wall.rule


def test_dell_f800_189_samples(model: CostModel) -> None:
    g = model.batch_genomes_per_day(DELL, "xeon-e5-2697v4", "isilon-f800", nodes=63, samples_per_node=3)
    assert round(g.value, 1) == 325.4
    assert "13.94 h" in g.rule


@pytest.mark.parametrize(("nodes", "samples_per_node", "expected"), [(32, 2, 136), (52, 2, 219)])
def test_dell_f800_scaling(model: CostModel, nodes: int, samples_per_node: int, expected: float) -> None:
    g = model.batch_genomes_per_day(DELL, "xeon-e5-2697v4", "isilon-f800", nodes, samples_per_node)
    assert round(g.value) == expected


def test_h600_collapse(model: CostModel) -> None:
    at = model.batch_genomes_per_day(DELL, "xeon-e5-2697v4", "isilon-h600", nodes=52, samples_per_node=3)
    past = model.batch_genomes_per_day(DELL, "xeon-e5-2697v4", "isilon-h600", nodes=64, samples_per_node=3)
    assert round(at.value) == 252
    assert round(past.value) == 147
    assert "ceiling of 156" in past.rule
    # adding nodes past the ceiling makes it worse, monotonically
    values = [model.batch_genomes_per_day(DELL, "xeon-e5-2697v4", "isilon-h600", n, 3).value
              for n in range(52, 70, 2)]
    assert all(a > b for a, b in zip(values, values[1:], strict=False))
    # two H600 units double the ceiling
    two = model.batch_genomes_per_day(DELL, "xeon-e5-2697v4", "isilon-h600", 64, 3, storage_units=2)
    assert two.value > 252


def test_lustre_and_h600_80_samples(model: CostModel) -> None:
    h600 = model.batch_genomes_per_day(DELL, "xeon-e5-2697v4", "isilon-h600", 40, 2)
    lustre = model.batch_genomes_per_day(DELL, "xeon-e5-2697v4", "lustre-dell", 40, 2)
    assert round(h600.value, 2) == 164.38
    assert round(lustre.value, 2) == 165.37
