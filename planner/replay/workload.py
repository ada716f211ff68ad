"""Replay inputs: the jobs (numpy arrays) and the machine they are replayed on (pure, no Django)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]


class ReplayInputError(ValueError):
    """Input the replay cannot use; the message is one line naming the field and the reason."""


@dataclass(frozen=True, slots=True)
class Workload:
    """Jobs to replay, one array element per job, times in integer seconds.

    ``req_s`` is the requested wall time (None: the run time); values below the run time are
    raised to it, as the policy says. ``job_id`` breaks ties between equal submit times (None:
    the position). ``queue`` is a small integer per job (None: one queue).
    """

    submit_s: I64
    run_s: I64
    procs: I64
    req_s: I64 | None = None
    job_id: I64 | None = None
    queue: I64 | None = None

    def __post_init__(self) -> None:
        n = len(self.submit_s)
        for name in ("submit_s", "run_s", "procs", "req_s", "job_id", "queue"):
            value = getattr(self, name)
            if value is None:
                continue
            if len(value) != n:
                raise ReplayInputError(f"workload field {name}: {len(value)} values for {n} jobs")
            if value.dtype != np.int64 or not value.flags.c_contiguous:  # the kernels' one dtype (no copy if so)
                object.__setattr__(self, name, np.ascontiguousarray(value, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.submit_s)

    @staticmethod
    def of(submit_s: object, run_s: object, procs: object, req_s: object = None, job_id: object = None,
           queue: object = None) -> Workload:
        """Build from anything array-like (lists in tests, columns from the database)."""

        def conv(x: object) -> I64 | None:
            return None if x is None else np.ascontiguousarray(np.asarray(x, dtype=np.int64))

        s, r, p = conv(submit_s), conv(run_s), conv(procs)
        assert s is not None and r is not None and p is not None
        return Workload(s, r, p, conv(req_s), conv(job_id), conv(queue))


@dataclass(frozen=True, slots=True)
class NodeType:
    """``count`` identical nodes of ``cores`` processors each."""

    count: int
    cores: int
    name: str = ""


@dataclass(frozen=True, slots=True)
class Machine:
    """Either a pool of ``processors`` identical processors, or nodes of one or more types.

    In pool mode a job needs ``p`` processors anywhere; in node mode it is placed on nodes by the
    rule in ``kernel_nodes`` (a job up to a node's width on one node, a wider job on whole nodes).
    """

    processors: int = 0
    node_types: tuple[NodeType, ...] = field(default_factory=tuple)

    @staticmethod
    def pool(processors: int) -> Machine:
        return Machine(processors=int(processors))

    @staticmethod
    def nodes(*node_types: NodeType) -> Machine:
        types = tuple(t for t in node_types if t.count > 0)
        return Machine(processors=sum(t.count * t.cores for t in types), node_types=types)

    @property
    def node_mode(self) -> bool:
        return bool(self.node_types)

    @property
    def widest_node(self) -> int:
        return max((t.cores for t in self.node_types), default=0)

    def scaled(self, factor: float) -> Machine:
        """The same machine with ``factor`` times the processors (pool: floor; nodes: counts, floor)."""
        if not self.node_mode:
            return Machine.pool(int(np.floor(self.processors * factor)))
        return Machine.nodes(*(NodeType(int(np.floor(t.count * factor)), t.cores, t.name)
                               for t in self.node_types))

    def describe(self) -> str:
        if not self.node_mode:
            return f"{self.processors} processors"
        return " + ".join(f"{t.count} x {t.cores}-core{' ' + t.name if t.name else ''}" for t in self.node_types)
