"""The per-genome performance model behaves like hardware: properties that hold for any inputs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.hardware.performance import (
    Node,
    Pipeline,
    Stage,
    Storage,
    batch_run,
    genome_times,
    machine_throughput,
    samples_per_node,
)

fractions = st.floats(min_value=0.0, max_value=1.0)
works = st.floats(min_value=1.0, max_value=5000.0)


def _pipe(p: float = 0.95, work: float = 1000.0, io_mops: float = 0.0, ws_gb: float = 50.0,
          mode: str = "dedicated", mem: float = 0.0) -> Pipeline:
    stages = (Stage("alignment", 0.5, 0.5, jobs=1, threads=64, parallel_fraction=p),
              Stage("calling", 0.5, 0.5, jobs=1, threads=64, parallel_fraction=p))
    return Pipeline("t", stages, work, io_mops, ws_gb, mode=mode, memory_gb_per_sample=mem)


FLASH = Storage("flash", slow_kiops=200.0, fast_kiops=200.0, fast_tb=None)
HYBRID = Storage("hybrid", slow_kiops=5.0, fast_kiops=150.0, fast_tb=8.0)


@settings(max_examples=60, deadline=None)
@given(p=fractions, work=works, c1=st.integers(1, 64), extra=st.integers(0, 64))
def test_more_cores_never_make_a_cpu_bound_genome_slower(p: float, work: float, c1: int, extra: int) -> None:
    pipe = _pipe(p, work)
    narrow, wide = Node("n", c1, 2.5), Node("w", c1 + extra, 2.5)
    t_narrow = genome_times(pipe, narrow, FLASH, 1, cores_per_sample=c1)
    t_wide = genome_times(pipe, wide, FLASH, 1, cores_per_sample=c1 + extra)
    assert t_wide.turnaround_hours <= t_narrow.turnaround_hours * (1 + 1e-12)
    # and the CPU consumed does not depend on how many cores share it
    assert t_wide.cpu_hours == pytest.approx(t_narrow.cpu_hours)


@settings(max_examples=40, deadline=None)
@given(work=works, c1=st.integers(1, 64), extra=st.integers(1, 64))
def test_a_serial_stage_gains_nothing_from_width(work: float, c1: int, extra: int) -> None:
    pipe = _pipe(0.0, work)
    a = genome_times(pipe, Node("n", c1, 3.0), FLASH, 1, cores_per_sample=c1)
    b = genome_times(pipe, Node("w", c1 + extra, 3.0), FLASH, 1, cores_per_sample=c1 + extra)
    assert a.turnaround_hours == pytest.approx(b.turnaround_hours)


def test_wider_nodes_help_only_as_far_as_the_stage_scales() -> None:
    """Amdahl: with p = 0.9 going from 12 to 64 cores is far from 5.3x faster."""
    pipe = _pipe(0.9, 1000.0)
    t12 = genome_times(pipe, Node("n", 12, 3.0), FLASH, 1, cores_per_sample=12).turnaround_hours
    t64 = genome_times(pipe, Node("w", 64, 3.0), FLASH, 1, cores_per_sample=64).turnaround_hours
    assert 1.0 < t12 / t64 < 64 / 12
    assert t12 / t64 == pytest.approx((0.1 + 0.9 / 12) / (0.1 + 0.9 / 64))


def test_higher_clock_is_proportionally_faster_for_cpu_hours() -> None:
    pipe = _pipe(0.95, 1000.0)
    slow = genome_times(pipe, Node("a", 12, 2.4), FLASH, 1, cores_per_sample=12)
    fast = genome_times(pipe, Node("b", 12, 3.5), FLASH, 1, cores_per_sample=12)
    assert slow.cpu_hours / fast.cpu_hours == pytest.approx(3.5 / 2.4)


@settings(max_examples=60, deadline=None)
@given(n1=st.floats(1, 400), more=st.floats(0, 400), io=st.floats(0.1, 20.0))
def test_more_genomes_in_flight_never_speed_up_one_genome(n1: float, more: float, io: float) -> None:
    pipe = _pipe(0.95, 500.0, io_mops=io)
    node = Node("n", 36, 2.3, memory_gb=128)
    for storage in (FLASH, HYBRID):
        a = genome_times(pipe, node, storage, n1, cores_per_sample=18)
        b = genome_times(pipe, node, storage, n1 + more, cores_per_sample=18)
        assert b.turnaround_hours >= a.turnaround_hours * (1 - 1e-12)
        assert 0.0 <= a.storage_bound_fraction <= 1.0


def test_genomes_per_day_fall_past_the_fast_tier() -> None:
    """The working-set law: once the genomes in flight overflow the SSD cache, adding nodes
    lowers genomes/day (the H600 shape), while an all-flash system keeps scaling."""
    pipe = _pipe(0.95, 200.0, io_mops=10.0, ws_gb=50.0)  # knee at 8 TB / 50 GB = 160 in flight
    node = Node("n", 36, 2.3, memory_gb=128)
    hybrid = [batch_run(pipe, node, HYBRID, n, 3).genomes_per_day for n in (40, 52, 60, 64, 70)]
    flash = [batch_run(pipe, node, FLASH, n, 3).genomes_per_day for n in (40, 52, 60, 64, 70)]
    assert hybrid[0] < hybrid[1]  # below the knee: more nodes, more genomes
    assert hybrid[1] > hybrid[2] > hybrid[3] > hybrid[4]  # past it (156+ in flight): fewer
    assert all(a < b for a, b in zip(flash, flash[1:], strict=False))


@settings(max_examples=40, deadline=None)
@given(tb1=st.floats(0.0, 50.0), more=st.floats(0.0, 50.0), n=st.floats(1, 500))
def test_more_flash_never_slows_a_genome(tb1: float, more: float, n: float) -> None:
    pipe = _pipe(0.95, 500.0, io_mops=5.0, ws_gb=100.0)
    node = Node("n", 12, 3.5)
    small = Storage("s", 2.0, 30.0, tb1)
    big = Storage("b", 2.0, 30.0, tb1 + more)
    a = genome_times(pipe, node, small, n)
    b = genome_times(pipe, node, big, n)
    assert b.turnaround_hours <= a.turnaround_hours * (1 + 1e-12)
    assert b.fast_fraction >= a.fast_fraction


def test_flash_reserved_for_ingest_is_not_available_to_working_sets() -> None:
    pipe = _pipe(0.95, 500.0, io_mops=5.0, ws_gb=100.0)
    node = Node("n", 12, 3.5)
    storage = Storage("s", 2.0, 30.0, 20.0)  # 20 TB flash
    free = genome_times(pipe, node, storage, 150)  # 15 TB of working sets: fits
    reserved = genome_times(pipe, node, storage, 150, reserved_tb=10.0)  # 10 TB left: 2/3 fits
    assert free.fast_fraction == 1.0
    assert reserved.fast_fraction == pytest.approx(10 / 15)
    assert reserved.turnaround_hours > free.turnaround_hours


def test_memory_bounds_samples_per_node() -> None:
    pipe = _pipe(mem=40.0)
    assert samples_per_node(pipe, Node("n", 36, 2.3, memory_gb=128)) == 3
    assert samples_per_node(pipe, Node("n", 36, 2.3, memory_gb=64)) == 1
    assert samples_per_node(pipe, Node("n", 2, 2.3, memory_gb=512)) == 2  # at most one core each


def test_cpu_efficiency_and_core_hours_are_consistent() -> None:
    pipe = _pipe(0.9, 1000.0, io_mops=5.0)
    t = genome_times(pipe, Node("n", 12, 3.5), HYBRID, 50, cores_per_sample=12)
    assert t.cpu_efficiency == pytest.approx(t.cpu_hours / t.wall_core_hours)
    assert t.wall_core_hours == pytest.approx(12 * t.turnaround_hours)  # dedicated: held all along
    assert sum(s.wall_core_hours for s in t.stages) == pytest.approx(t.wall_core_hours)


def test_machine_throughput_admits_only_helpful_concurrency() -> None:
    """Past the knee a scheduler that limits genomes in flight beats running every node full."""
    pipe = _pipe(0.95, 200.0, io_mops=10.0, ws_gb=50.0, mem=40.0)
    node = Node("n", 36, 2.3, memory_gb=128)
    m = machine_throughput(pipe, node, 70, HYBRID)
    assert m.in_flight_unlimited == 210
    assert m.genomes_per_day > m.genomes_per_day_unlimited
    assert m.in_flight < 210
    assert m.genomes_per_day == pytest.approx(24 * m.in_flight / m.turnaround_hours)


def test_shared_mode_throughput_is_bounded_by_cores() -> None:
    stages = (Stage("align", 0.3, 0.3, jobs=1, threads=16, parallel_fraction=0.97),
              Stage("rest", 0.7, 0.7, jobs=64, threads=1, parallel_fraction=0.999))
    pipe = Pipeline("shared", stages, 1500.0, 0.0, 300.0, mode="shared")
    node = Node("ivy", 12, 3.5, memory_gb=64)
    m = machine_throughput(pipe, node, 100, FLASH)
    cpu_bound = 24 * 1200 / m.times.wall_core_hours
    assert m.genomes_per_day == pytest.approx(cpu_bound, rel=1e-6)
    assert m.storage_bound_fraction == 0.0


def test_the_hit_exponent_shapes_only_the_fall_past_the_knee() -> None:
    """k = 1 is Denning's proportional law; a larger k falls faster past the knee, and nothing
    changes while the working sets fit (docs/performance-model.md, sensitivity table)."""
    from dataclasses import replace

    from planner.hardware.performance import fast_fraction

    pipe = _pipe(io_mops=1.0, ws_gb=50.0)  # 8 TB holds 160 working sets
    steep = replace(HYBRID, hit_exponent=4.0)
    assert fast_fraction(pipe, HYBRID, 100) == fast_fraction(pipe, steep, 100) == 1.0
    assert fast_fraction(pipe, HYBRID, 200) == pytest.approx(160 / 200)
    assert fast_fraction(pipe, steep, 200) == pytest.approx((160 / 200) ** 4)
    assert HYBRID.hit_exponent == 1.0 and steep.scaled(2.0).hit_exponent == 4.0
    fall = batch_run(pipe, Node("n", 36, 2.3), steep, 100, 2).genomes_per_day
    assert fall < batch_run(pipe, Node("n", 36, 2.3), HYBRID, 100, 2).genomes_per_day
