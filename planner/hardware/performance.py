"""Per-genome performance model of the hardware, by pipeline stage (pure core, no Django).

A pipeline is a list of stages (alignment, sort/dedup, recalibration, calling ...). For one genome
on a node type, with ``in_flight`` genomes sharing the storage system at once:

- **CPU**: stage s needs ``work_share x work_ghz_core_hours`` of CPU work; on a node it takes
  ``cpu_s = work_s / (clock_ghz x arch_factor)`` core-hours. Its elapsed compute time on ``slots``
  parallel slots follows Amdahl's law: ``cpu_s x ((1 - p_s) + p_s / slots)``. Slots are the
  stage's jobs x threads per job (threads capped by the node's cores), and in ``dedicated`` mode
  also capped by the sample's share of its node (cores / samples per node). So a wider node helps
  a stage only as far as the stage scales.
- **I/O**: the genome performs ``io_mops`` million small-I/O and metadata operations. The storage
  system is shared by every genome in flight (processor sharing), so one genome's I/O time is
  ``in_flight x io_ops x (h / fast_iops + (1 - h) / slow_iops)``: ``h`` is the share served by the
  fast tier (flash or SSD cache). The fast tier holds the working set of the genomes in flight
  (after ``reserved_tb``, e.g. days of ingest kept on flash); what does not fit runs at the disk
  tier's speed: ``h = min(1, fast capacity / (in_flight x working_set_gb))``. Past that point the
  time per genome grows faster than the number in flight, so genomes/day falls: the working-set
  (thrashing) law of Denning (1968), which is what the Isilon H600 shows past ~156 samples.
- **Cores held**: in ``shared`` mode (jobs scheduled across a cluster, as on Minerva) a stage holds
  its slots while it computes and while it waits on I/O; in ``dedicated`` mode (k samples per
  node) a genome holds its share of the node for its whole run. Wall core-hours = cores held x
  elapsed; CPU efficiency = CPU hours / wall core-hours (0.84 on flash, 0.46 on disk at Minerva).
- **Memory** bounds samples per node (dedicated) or usable cores per node (shared, per slot).

Units are in the names: hours, GHz, GB, TB (decimal), kIOPS (thousand operations per second),
mops (million operations).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

HOURS_PER_DAY = 24.0
SECONDS_PER_HOUR = 3600.0
MODES = ("shared", "dedicated")


@dataclass(frozen=True, slots=True)
class Stage:
    name: str
    work_share: float  # of the pipeline's CPU work
    io_share: float  # of the pipeline's I/O operations
    jobs: int = 1  # scatter width: independent jobs the stage is split into
    threads: int = 1  # threads per job, capped by the node's cores
    parallel_fraction: float = 1.0  # Amdahl p over the stage's slots


@dataclass(frozen=True, slots=True)
class Pipeline:
    name: str
    stages: tuple[Stage, ...]
    work_ghz_core_hours: float  # CPU work per genome, core-hours on a 1 GHz core of arch factor 1
    io_mops: float  # small-I/O + metadata operations per genome, millions
    working_set_gb: float  # what one genome in flight keeps on the fast tier
    mode: str = "shared"  # "shared" (cluster-wide jobs) or "dedicated" (k samples per node)
    memory_gb_per_sample: float = 0.0  # dedicated mode: bounds samples per node (0: no bound)
    memory_gb_per_slot: float = 0.0  # shared mode: bounds usable cores per node (0: no bound)

    def stage(self, name: str) -> Stage:
        for st in self.stages:
            if st.name == name:
                return st
        raise KeyError(f"pipeline {self.name!r} has no stage {name!r}")


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    cores: int
    clock_ghz: float
    arch_factor: float = 1.0  # work per GHz per core relative to the reference architecture
    memory_gb: float = 0.0

    @property
    def core_speed(self) -> float:
        return self.clock_ghz * self.arch_factor


@dataclass(frozen=True, slots=True)
class Storage:
    """A storage system as the pipeline sees it: a disk tier, optionally fronted by a fast tier."""

    name: str
    slow_kiops: float  # disk tier, thousand operations per second
    fast_kiops: float = 0.0  # flash tier or SSD cache
    fast_tb: float | None = 0.0  # fast capacity for working sets; None: all flash (never overflows)
    # steepness of the fast tier's hit ratio past the knee: h = (capacity / working sets)^k. k = 1 is
    # Denning's proportional law (independent references); a larger k is a steeper fall, towards the
    # LRU/FIFO cliff of looping, in-phase references (docs/performance-model.md, sensitivity table)
    hit_exponent: float = 1.0

    def scaled(self, units: float, flash_tb: float | None = None, flash_kiops: float = 0.0) -> Storage:
        """``units`` of this system (rates and fast capacity grow linearly with units, seed 002),
        optionally fronted by ``flash_tb`` of a separate flash tier of ``flash_kiops``."""
        fast_tb = None if self.fast_tb is None else self.fast_tb * units
        fast_kiops = self.fast_kiops * units
        if flash_tb is not None and flash_tb > 0 and fast_tb is not None:
            fast_tb += flash_tb
            fast_kiops += flash_kiops
        return Storage(self.name, self.slow_kiops * units, fast_kiops, fast_tb, self.hit_exponent)


@dataclass(frozen=True, slots=True)
class StageTimes:
    name: str
    cpu_hours: float
    compute_hours: float  # elapsed
    io_hours: float  # elapsed
    slots: float  # cores the stage keeps busy per genome
    wall_core_hours: float


@dataclass(frozen=True, slots=True)
class GenomeTimes:
    """One genome on one node type and storage system, with ``in_flight`` genomes sharing storage."""

    cpu_hours: float  # CPU time consumed
    wall_core_hours: float  # core-hours held ("wall hours" of seed 000)
    turnaround_hours: float  # sample in to VCF out, without queueing
    io_hours: float  # elapsed time waiting on storage
    fast_fraction: float  # share of I/O served by the fast tier
    stages: tuple[StageTimes, ...] = field(default=())

    @property
    def cpu_efficiency(self) -> float:
        return self.cpu_hours / self.wall_core_hours if self.wall_core_hours else 0.0

    @property
    def storage_bound_fraction(self) -> float:
        """Share of the turnaround spent waiting on storage."""
        return self.io_hours / self.turnaround_hours if self.turnaround_hours else 0.0

    @property
    def cores_held(self) -> float:
        """Mean cores a genome in flight holds (wall core-hours / turnaround)."""
        return self.wall_core_hours / self.turnaround_hours if self.turnaround_hours else 0.0


def fast_fraction(pipeline: Pipeline, storage: Storage, in_flight: float, reserved_tb: float = 0.0) -> float:
    """Share of I/O served by the fast tier: min(1, fast capacity / working set of the genomes in
    flight), to the power ``hit_exponent`` past the knee (1: Denning's proportional law)."""
    if storage.fast_tb is None:
        return 1.0
    if storage.fast_kiops <= 0:
        return 0.0
    avail_gb = max(0.0, storage.fast_tb - reserved_tb) * 1000.0
    need_gb = max(in_flight, 1.0) * pipeline.working_set_gb
    if need_gb <= 0 or avail_gb >= need_gb:
        return 1.0
    return (avail_gb / need_gb) ** storage.hit_exponent


def io_hours(pipeline: Pipeline, storage: Storage, in_flight: float, reserved_tb: float = 0.0) -> tuple[float, float]:
    """(elapsed I/O hours of one genome, fast-tier share) with ``in_flight`` genomes sharing storage."""
    h = fast_fraction(pipeline, storage, in_flight, reserved_tb)
    per_op_s = 0.0
    if h > 0:
        per_op_s += h / (storage.fast_kiops * 1000.0)
    if h < 1:
        per_op_s += (1.0 - h) / (max(storage.slow_kiops, 1e-12) * 1000.0)
    ops = pipeline.io_mops * 1e6
    return max(in_flight, 1.0) * ops * per_op_s / SECONDS_PER_HOUR, h


def samples_per_node(pipeline: Pipeline, node: Node) -> int:
    """Dedicated mode: genomes a node runs at once, bounded by memory (and by one core each)."""
    if pipeline.memory_gb_per_sample <= 0 or node.memory_gb <= 0:
        return node.cores
    return max(0, min(node.cores, int(node.memory_gb // pipeline.memory_gb_per_sample)))


def usable_cores(pipeline: Pipeline, node: Node) -> int:
    """Shared mode: cores of a node that can run a job, bounded by memory per slot."""
    if pipeline.memory_gb_per_slot <= 0 or node.memory_gb <= 0:
        return node.cores
    return min(node.cores, int(node.memory_gb // pipeline.memory_gb_per_slot))


def genome_times(pipeline: Pipeline, node: Node, storage: Storage, in_flight: float,
                 cores_per_sample: float | None = None, reserved_tb: float = 0.0) -> GenomeTimes:
    """Times of one genome. ``cores_per_sample``: the genome's share of a node (dedicated mode);
    None: shared mode, each stage uses its own slots."""
    speed = node.core_speed
    io_total, h = io_hours(pipeline, storage, in_flight, reserved_tb)
    cpu = compute = io = wall = 0.0
    parts: list[StageTimes] = []
    for st in pipeline.stages:
        slots = float(st.jobs * min(st.threads, node.cores))
        if cores_per_sample is not None:
            slots = max(1.0, min(slots, cores_per_sample))
        cpu_s = pipeline.work_ghz_core_hours * st.work_share / speed
        p = st.parallel_fraction
        comp_s = cpu_s * ((1.0 - p) + p / slots)
        io_s = io_total * st.io_share
        held = cores_per_sample if cores_per_sample is not None else slots
        wall_s = held * (comp_s + io_s)
        parts.append(StageTimes(st.name, cpu_s, comp_s, io_s, slots, wall_s))
        cpu += cpu_s
        compute += comp_s
        io += io_s
        wall += wall_s
    return GenomeTimes(cpu, wall, compute + io, io, h, tuple(parts))


def job_hours(pipeline: Pipeline, stage_name: str, node: Node, threads: int, work_ghz_core_hours: float) -> float:
    """Elapsed hours of one job of a stage (no storage wait): Amdahl over ``threads`` on ``node``."""
    st = pipeline.stage(stage_name)
    t = max(1, min(threads, node.cores))
    p = st.parallel_fraction
    return work_ghz_core_hours / node.core_speed * ((1.0 - p) + p / t)


@dataclass(frozen=True, slots=True)
class BatchRun:
    samples: int
    run_hours: float
    genomes_per_day: float
    times: GenomeTimes


def batch_run(pipeline: Pipeline, node: Node, storage: Storage, nodes: int, samples_per_node_: int) -> BatchRun:
    """A batch of nodes x k genomes started together, k to a node (seed 001's experiment):
    genomes/day = 24 / run time x samples."""
    n = nodes * samples_per_node_
    times = genome_times(pipeline, node, storage, n, cores_per_sample=node.cores / samples_per_node_)
    return BatchRun(n, times.turnaround_hours, HOURS_PER_DAY * n / times.turnaround_hours, times)


@dataclass(frozen=True, slots=True)
class MachineThroughput:
    """Steady-state throughput of a machine: node type x count x storage (x flash)."""

    genomes_per_day: float  # best, with concurrency limited to the best number in flight
    in_flight: float  # genomes in flight at the best
    genomes_per_day_unlimited: float  # every core busy, however the storage copes
    in_flight_unlimited: float
    times: GenomeTimes  # at the best
    cores_bound: bool  # True: more genomes in flight would not help (cores are the limit)

    @property
    def turnaround_hours(self) -> float:
        return self.times.turnaround_hours

    @property
    def storage_bound_fraction(self) -> float:
        return self.times.storage_bound_fraction


def _rate(pipeline: Pipeline, node: Node, storage: Storage, n: float, cores: float,
          cores_per_sample: float | None, reserved_tb: float) -> tuple[float, GenomeTimes]:
    """genomes/day with n in flight: Little's law 24 n / turnaround, at most what the cores sustain."""
    t = genome_times(pipeline, node, storage, n, cores_per_sample, reserved_tb)
    by_flight = HOURS_PER_DAY * n / t.turnaround_hours
    by_cores = HOURS_PER_DAY * cores / t.wall_core_hours
    return min(by_flight, by_cores), t


def machine_throughput(pipeline: Pipeline, node: Node, count: int, storage: Storage,
                       reserved_tb: float = 0.0, utilisation: float = 1.0) -> MachineThroughput:
    """Genomes/day of ``count`` nodes on ``storage``; ``reserved_tb`` of the fast tier holds ingest.

    Dedicated mode: each node runs k genomes (memory-bound), so at most count x k are in flight.
    Shared mode: the genomes in flight are as many as the cores can hold (fixed point of
    n = cores / cores held per genome). Either way the best throughput admits only as many genomes
    as help (a scheduler limit); ``genomes_per_day_unlimited`` is without that limit.
    """
    if pipeline.mode == "dedicated":
        k = samples_per_node(pipeline, node)
        cps: float | None = node.cores / k if k else None
        cores = float(count * k * (node.cores / k)) * utilisation if k else 0.0
        n_max = float(count * k) * utilisation
    else:
        cps = None
        cores = float(count * usable_cores(pipeline, node)) * utilisation
        n_max = 1.0
        for _ in range(30):  # n = cores / cores held per genome(n): monotone, converges fast
            held = genome_times(pipeline, node, storage, n_max, None, reserved_tb).cores_held
            n_new = max(1.0, cores / held) if held > 0 else 1.0
            if abs(n_new - n_max) <= 1e-6 * n_new:
                n_max = n_new
                break
            n_max = n_new
    if cores <= 0 or n_max <= 0:
        t0 = genome_times(pipeline, node, storage, 1.0, cps, reserved_tb)
        return MachineThroughput(0.0, 0.0, 0.0, 0.0, t0, True)
    g_max, t_max = _rate(pipeline, node, storage, n_max, cores, cps, reserved_tb)
    best_g, best_n, best_t = g_max, n_max, t_max
    # throughput rises then (past the fast tier or storage saturation) may fall: scan n in flight
    grid = [n_max * (i / 48.0) for i in range(1, 48)]
    knee = _knee(pipeline, storage, reserved_tb)
    if knee is not None and 0 < knee < n_max:
        grid += [knee, max(1.0, knee * 0.999)]
    for n in grid:
        if n < 1.0:
            continue
        g, t = _rate(pipeline, node, storage, n, cores, cps, reserved_tb)
        if g > best_g * (1 + 1e-12):
            best_g, best_n, best_t = g, n, t
    return MachineThroughput(best_g, best_n, g_max, n_max, best_t, best_n >= n_max * (1 - 1e-9))


def _knee(pipeline: Pipeline, storage: Storage, reserved_tb: float) -> float | None:
    """Genomes in flight at which the fast tier is full (None: all flash)."""
    if storage.fast_tb is None or pipeline.working_set_gb <= 0:
        return None
    return max(0.0, storage.fast_tb - reserved_tb) * 1000.0 / pipeline.working_set_gb


def speedup(before: float, after: float) -> float:
    """How many times faster: before / after (2,702 / 562 = 4.8)."""
    return before / after if after else math.inf
