"""The second solver process beside HiGHS: a valid bound and feasible plans, never another optimum."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from planner.designs.confidence import plan_for_service_level
from planner.designs.highs import Arrays, highs_for, relative_gap
from planner.hardware.catalog import Catalog, load_catalog
from tests.planner.test_local_search import _feasible, instance  # noqa: F401 (a fixture)
from tests.planner.test_service_level import _design, _enumerate, _paths

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(ROOT / "fixtures" / "catalog.yaml")


@pytest.fixture
def always(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second process for every service-level model, however small."""
    import planner.designs.second_core as sc

    monkeypatch.setattr(sc, "MIN_INTEGERS", 0)


@pytest.mark.parametrize("formulation", ["corners", "levels"])
def test_with_the_second_process_the_plan_is_still_the_enumerated_optimum(catalog: Catalog, always: None,
                                                                          formulation: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Levels: the second process's relaxation gets the pair hulls and the corner cuts; the bound they
    prove must never pass the optimum (an invalid bound would end the solve short of "optimal")."""
    import planner.designs.service_level as sl

    if formulation == "levels":
        monkeypatch.setattr(sl, "MAX_CORNERS", 0)
    base = _paths([2015, 2016], n=10, seed=13, core=2.0e5, tb=500, genomes=1.5)
    demand = replace(base, ingest_tb_per_day=base.genomes_per_day * 2.5)
    design = replace(_design([2015, 2016]), flash_days=7, flash_system="flash-gss")
    result, _ = plan_for_service_level(design, catalog, demand, 0.7, node_types=["haswell"],
                                       storage_systems=["ibm-gss26", "flash-gss"], mip_rel_gap=0.0, confidence=None)
    assert result.status == "optimal"
    assert "second process" in result.message
    assert ("corner cuts" in result.message) == (formulation == "levels")
    choices = {("node", "haswell", 2015): 14, ("node", "haswell", 2016): 4, ("storage", "ibm-gss26", 2015): 2,
               ("storage", "ibm-gss26", 2016): 1, ("storage", "flash-gss", 2015): 3, ("storage", "flash-gss", 2016): 1}
    for p in result.purchases:
        key = ("node", p.node_type, p.year) if p.node_type else ("storage", p.storage_system, p.year)
        assert p.count < choices[key]
    assert result.npv_usd == pytest.approx(_enumerate(design, catalog, demand, 0.7, choices), rel=1e-9)


def test_the_storage_only_relaxation_bounds_the_optimum_from_below(catalog: Catalog) -> None:
    """Only the storage purchases integer: a relaxation of the same model, so never above its optimum."""
    import planner.designs.optimize as opt

    captured: dict[str, object] = {}

    def keep(m: object, storage: list[int], *args: object) -> tuple[None, Arrays]:
        captured["arrays"], captured["storage"] = Arrays.of(m), storage
        return None, captured["arrays"]  # type: ignore[return-value]

    demand = _paths([2015, 2016], n=40, seed=21, core=3.0e5, tb=900, genomes=1.0)
    design = replace(_design([2015, 2016]), flash_days=7, flash_system="flash-gss")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(opt, "start_second_core", keep)
        result, _ = plan_for_service_level(design, catalog, demand, 0.8, node_types=["haswell", "ivy-bridge"],
                                           storage_systems=["ibm-gss26", "ddn-sfa12k", "flash-gss"],
                                           mip_rel_gap=0.0, confidence=None)
    arr = captured["arrays"]
    assert isinstance(arr, Arrays) and result.npv_usd is not None
    only = np.zeros(len(arr.cost), dtype=bool)
    only[captured["storage"]] = True  # type: ignore[index]
    h = highs_for(arr, 30.0, 0.0, integer=only)
    h.run()
    full = highs_for(arr, 30.0, 0.0)
    full.run()
    assert h.getInfo().mip_dual_bound <= full.getInfo().objective_function_value * (1 + 1e-9)
    assert h.getInfo().mip_dual_bound > 0


def test_the_relative_gap_is_highs_own() -> None:
    assert relative_gap(100.0, 99.0) == pytest.approx(0.01)
    assert relative_gap(100.0, 100.0) == 0.0
    assert relative_gap(100.0, 101.0) == 0.0  # a bound above the plan: closed
    assert relative_gap(math.inf, 1.0) == math.inf



def _flood(out: object, inbox: object) -> None:
    for _ in range(40):
        out.put(np.zeros(8_000))  # type: ignore[attr-defined]
    for _ in range(40):
        inbox.get(timeout=20)  # type: ignore[attr-defined]


def test_both_processes_can_hand_over_plans_at_once_without_blocking() -> None:
    """Both processes send plans (64 KB each, a pipe's whole buffer) before either reads: through
    the channels the second process uses, neither blocks (with pipes both sides once waited on a
    full buffer for ever, in the bench_service_level solve)."""
    import multiprocessing as mp
    import time

    from planner.designs.second_core import channel

    ctx = mp.get_context("spawn")
    to_child, from_child = channel(ctx), channel(ctx)
    proc = ctx.Process(target=_flood, args=(from_child, to_child), daemon=True)
    proc.start()
    t0 = time.perf_counter()
    for _ in range(40):
        to_child.put(np.zeros(8_000))
    got = [from_child.get(timeout=20) for _ in range(40)]
    proc.join(20)
    assert len(got) == 40 and proc.exitcode == 0
    assert time.perf_counter() - t0 < 20


def test_the_main_process_descends_from_the_relaxation_while_the_second_searches(
        instance: dict[str, Any]) -> None:  # noqa: F811 (the fixture imported above)
    """SPLIT_SEARCH: the second process hands over the relaxation's optimal storage and the main process
    descends from it (SecondCore.descend). A gap of -1 is never met, so the descent always runs here."""
    import time

    from planner.designs.second_core import SPLIT_SEARCH, SecondCore

    assert SPLIT_SEARCH
    arr, storage = instance["arr"], instance["storage"]
    partner = SecondCore(arr, list(storage), 8.0, -1.0, list(instance["systems"]))
    try:
        x = partner.descend(arr, list(storage), list(instance["systems"]), None, time.perf_counter() + 20.0, 5.0)
    finally:
        out = partner.finish()
    assert x is not None and _feasible(arr, x)
    assert float(x @ arr.cost) + instance["const"] >= instance["optimum_npv"] * (1 - 1e-9)
    assert "main process's descent from the relaxation" in out.note
    assert "descent from the relaxation, " not in out.note.split("; main process's")[0]  # not also in the second



def test_the_second_process_keeps_to_the_caller_s_deadline_however_long_it_took_to_start() -> None:
    """The process's clock starts when it has started (about a second after the caller asked): it stops at the
    caller's deadline on the shared wall clock, not ``time_limit_s`` after its own start."""
    from planner.designs.second_core import child_end

    # asked at wall time 1000.0 for 30 s (deadline 1030.0); started 1.4 s later, its own clock reading 5.0
    assert child_end(5.0, 30.0, 1030.0, 1001.4) == pytest.approx(5.0 + 28.6)
    assert child_end(5.0, 30.0, None, 1001.4) == 35.0  # no deadline given: its own limit, as before
    assert child_end(5.0, 10.0, 1030.0, 1001.4) == 15.0  # never later than its own limit
