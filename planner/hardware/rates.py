"""Per-option rates of the performance model for design evaluation and the optimiser (pure core).

A design runs its pipeline on one storage tier (the "pipeline tier") and any mix of node types.
To keep the optimiser an exact MILP, the model is evaluated once per (node type, tier) at the
design's storage utilisation target rho, which turns every throughput limit into a linear term:

- With g genomes/day and each genome doing D operations, the tier is busy rho = g D / (86,400 R)
  of the time (R: operations per second of the tier). Closed processor sharing + Little's law
  (genomes in flight N = g T / 24, I/O time N D / R, see performance.py) give a genome's turnaround
  T = T_compute / (1 - rho): the storage-bound fraction of the turnaround equals rho.
- Keeping the tier at most rho busy: g <= rho x 86,400 x R / D = ``genomes_per_day_per_unit`` x units.
- At that load a node of type n completes ``genomes_per_day_per_node`` = 24 x usable cores x core
  utilisation / wall core-hours per genome (shared mode), or 24 x samples per node / T (dedicated).
- The genomes in flight on node type n are g_n x T_n / 24; their working sets (working_set_gb
  each) must fit the tier's fast capacity (flash or SSD cache, less the ingest window on flash):
  sum_n g_n x ``in_flight_per_genome_per_day`` x working_set_gb <= fast TB. What would not fit
  would run at disk speed (performance.py), so a design keeps it on flash instead.
- A turnaround limit (e.g. clinical 24 h) excludes (node type, tier) pairs whose T exceeds it.

The evaluation computes a year's genomes/day capacity on a tier with the same terms: the largest
sum of g_n with g_n <= rate_n x nodes_n, the tier's operations cap and the working-set cap, a
fractional knapsack solved exactly by filling the node types with the shortest turnaround first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from planner.hardware.performance import (
    HOURS_PER_DAY,
    GenomeTimes,
    Node,
    Pipeline,
    StageTimes,
    Storage,
    genome_times,
    samples_per_node,
    usable_cores,
)

SECONDS_PER_DAY = 86_400.0


def times_at_utilisation(pipeline: Pipeline, node: Node, rho: float) -> GenomeTimes:
    """A genome's times when its storage tier is ``rho`` busy: I/O = rho / (1 - rho) x compute."""
    if not 0.0 <= rho < 1.0:
        raise ValueError(f"storage utilisation must be in [0, 1), got {rho!r}")
    cps: float | None = None
    if pipeline.mode == "dedicated":
        k = max(1, samples_per_node(pipeline, node))
        cps = node.cores / k
    idle = Storage("none", 1.0, 1.0, None)
    base = genome_times(replace(pipeline, io_mops=0.0), node, idle, 1.0, cps)
    io_total = base.turnaround_hours * rho / (1.0 - rho)
    stages: list[StageTimes] = []
    wall = 0.0
    for st, part in zip(pipeline.stages, base.stages, strict=True):
        io_s = io_total * st.io_share
        held = cps if cps is not None else part.slots
        w = held * (part.compute_hours + io_s)
        stages.append(StageTimes(part.name, part.cpu_hours, part.compute_hours, io_s, part.slots, w))
        wall += w
    return GenomeTimes(base.cpu_hours, wall, base.turnaround_hours + io_total, io_total, 1.0, tuple(stages))


@dataclass(frozen=True, slots=True)
class OptionRate:
    """One node type on one pipeline tier, at the design's storage utilisation target."""

    node: str
    tier: str
    cpu_hours: float
    wall_core_hours: float
    turnaround_hours: float
    storage_bound_fraction: float
    genomes_per_day_per_node: float
    in_flight_per_genome_per_day: float  # genomes in flight per genome/day served (T / 24)


def option_rate(pipeline: Pipeline, node: Node, tier: str, rho: float, core_share: float) -> OptionRate:
    """``core_share``: utilisation target x genomics share of the cores."""
    t = times_at_utilisation(pipeline, node, rho)
    if pipeline.mode == "dedicated":
        per_node = HOURS_PER_DAY * samples_per_node(pipeline, node) * core_share / t.turnaround_hours
    else:
        per_node = HOURS_PER_DAY * usable_cores(pipeline, node) * core_share / t.wall_core_hours
    return OptionRate(node.name, tier, t.cpu_hours, t.wall_core_hours, t.turnaround_hours,
                      t.storage_bound_fraction, per_node, t.turnaround_hours / HOURS_PER_DAY)


def tier_genomes_per_day_per_unit(pipeline: Pipeline, unit: Storage, rho: float) -> float:
    """Genomes/day one storage unit sustains at utilisation ``rho`` (working sets on its fast tier
    when it has one; on its disk tier otherwise)."""
    if pipeline.io_mops <= 0:
        return math.inf
    has_fast = unit.fast_tb is None or (unit.fast_tb > 0 and unit.fast_kiops > 0)
    kiops = unit.fast_kiops if has_fast else unit.slow_kiops
    return rho * SECONDS_PER_DAY * kiops * 1000.0 / (pipeline.io_mops * 1e6)


@dataclass(frozen=True, slots=True)
class Allocation:
    genomes_per_day: float
    by_node: dict[str, float]  # genomes/day served by each node type
    in_flight: float
    limit: str  # "nodes", "storage operations", "fast tier (working sets)" or "none"


def allocate(rates: dict[str, OptionRate], nodes: dict[str, int], ops_cap: float,
             fast_tb: float | None, working_set_gb: float, turnaround_limit_hours: float | None = None,
             ) -> Allocation:
    """The most genomes/day a tier serves: g_n <= rate_n x nodes_n, sum g <= ops_cap, working sets of
    the genomes in flight <= fast_tb (None: unbounded). Exact: fill the shortest turnaround first."""
    order = sorted((r for n, r in rates.items() if nodes.get(n, 0) > 0
                    and (turnaround_limit_hours is None or r.turnaround_hours <= turnaround_limit_hours + 1e-9)),
                   key=lambda r: (r.in_flight_per_genome_per_day, r.node))
    left_ops = ops_cap
    left_ws = math.inf  # genomes in flight whose working sets still fit
    if fast_tb is not None and working_set_gb > 0:
        left_ws = max(0.0, fast_tb) * 1000.0 / working_set_gb
    by_node: dict[str, float] = {}
    total = in_flight = 0.0
    limit = "nodes"
    for r in order:
        g = r.genomes_per_day_per_node * nodes[r.node]
        if g > left_ops:
            g, limit = left_ops, "storage operations"
        if r.in_flight_per_genome_per_day > 0 and g * r.in_flight_per_genome_per_day > left_ws:
            g, limit = left_ws / r.in_flight_per_genome_per_day, "fast tier (working sets)"
        g = max(0.0, g)
        by_node[r.node] = g
        total += g
        in_flight += g * r.in_flight_per_genome_per_day
        left_ops -= g
        left_ws -= g * r.in_flight_per_genome_per_day
        if left_ops <= 0 or left_ws <= 0:
            break
    if not order:
        limit = "none"
    return Allocation(total, by_node, in_flight, limit)
