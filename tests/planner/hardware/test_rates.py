"""Per-option rates: the linear terms the optimiser uses agree with the performance model."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from planner.hardware.performance import Node, Pipeline, Stage, Storage, genome_times
from planner.hardware.rates import (
    OptionRate,
    allocate,
    option_rate,
    tier_genomes_per_day_per_unit,
    times_at_utilisation,
)

STAGES = (Stage("align", 0.3, 0.3, jobs=1, threads=16, parallel_fraction=0.97),
          Stage("rest", 0.7, 0.7, jobs=64, threads=1, parallel_fraction=0.999))
PIPE = Pipeline("p", STAGES, 1600.0, 3.0, 330.0, mode="shared")
IVY = Node("ivy-bridge", 12, 3.5, 1.0, 64)


@pytest.mark.parametrize("rho", [0.0, 0.2, 0.5, 0.8])
def test_storage_bound_fraction_equals_the_utilisation(rho: float) -> None:
    t = times_at_utilisation(PIPE, IVY, rho)
    t0 = times_at_utilisation(PIPE, IVY, 0.0)
    assert t.storage_bound_fraction == pytest.approx(rho)
    assert t.turnaround_hours == pytest.approx(t0.turnaround_hours / (1 - rho))
    assert t.cpu_hours == pytest.approx(t0.cpu_hours)


@pytest.mark.parametrize("rho", [0.1, 0.5, 0.9])
def test_rates_match_the_model_at_the_load_they_stand_for(rho: float) -> None:
    """A tier running at rho (g = rho x its operations cap), with g T / 24 genomes in flight,
    gives every genome exactly the turnaround the linear rate assumes."""
    unit = Storage("flash", slow_kiops=2.0, fast_kiops=30.0, fast_tb=None)
    g = tier_genomes_per_day_per_unit(PIPE, unit, rho)
    t = times_at_utilisation(PIPE, IVY, rho)
    in_flight = g * t.turnaround_hours / 24
    direct = genome_times(PIPE, IVY, unit, in_flight)
    assert direct.turnaround_hours == pytest.approx(t.turnaround_hours, rel=1e-9)
    assert direct.wall_core_hours == pytest.approx(t.wall_core_hours, rel=1e-9)


def test_narrow_fast_nodes_turn_a_genome_around_sooner() -> None:
    amd = Node("amd-interlagos", 64, 2.3, 0.57, 256)
    fast = option_rate(PIPE, IVY, "flash", 0.3, 0.85)
    slow = option_rate(PIPE, amd, "flash", 0.3, 0.85)
    assert fast.turnaround_hours < slow.turnaround_hours
    assert fast.genomes_per_day_per_node < slow.genomes_per_day_per_node  # a wide node does more...
    assert fast.genomes_per_day_per_node / 12 > slow.genomes_per_day_per_node / 64  # ...per core less


rates_st = st.lists(st.tuples(st.floats(0.01, 5.0), st.floats(0.05, 5.0), st.integers(0, 50)),
                    min_size=1, max_size=5)


@settings(max_examples=80, deadline=None)
@given(opts=rates_st, ops_cap=st.floats(0.0, 200.0), fast_tb=st.floats(0.0, 50.0),
       limit=st.one_of(st.none(), st.floats(1.0, 100.0)))
@example(opts=[(1.0, 1.0, 1)], ops_cap=1.192092896e-07, fast_tb=0.0, limit=None)  # found by CI, 2026-11-27
def test_allocation_is_the_linear_programme_optimum(opts: list[tuple[float, float, int]], ops_cap: float,
                                                   fast_tb: float, limit: float | None) -> None:
    rates = {f"n{i}": OptionRate(f"n{i}", "t", 1.0, 1.0, 24 * fl, 0.0, r, fl)
             for i, (r, fl, _) in enumerate(opts)}
    nodes = {f"n{i}": c for i, (_, _, c) in enumerate(opts)}
    ws_gb = 300.0
    got = allocate(rates, nodes, ops_cap, fast_tb, ws_gb, limit)
    ok = [n for n, r in rates.items() if limit is None or r.turnaround_hours <= limit + 1e-9]
    ub = [rates[n].genomes_per_day_per_node * nodes[n] if n in ok else 0.0 for n in rates]
    a_ub = [[1.0] * len(rates), [rates[n].in_flight_per_genome_per_day * ws_gb / 1000 for n in rates]]
    lp = linprog([-1.0] * len(rates), A_ub=a_ub, b_ub=[ops_cap, fast_tb],
                 bounds=[(0, u) for u in ub], method="highs")
    assert lp.status == 0
    # HiGHS holds rows to a primal feasibility tolerance of 1e-7, so the reference LP may exceed the exact
    # optimum by about that over a row's coefficient (ops_cap 1.2e-7 with no fast tier: 1.2e-7 against 0)
    assert got.genomes_per_day == pytest.approx(-lp.fun, rel=1e-7, abs=1e-6)
