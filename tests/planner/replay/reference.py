"""A slow, obviously-correct replay of REPLAY-POLICY.md (pool mode), to check the kernel against.

Written from the policy text line by line with plain lists and no cleverness: every event time
is found by looking at every job; the queue is a list sorted by (rank, submit, id).
"""

from __future__ import annotations


def reference_replay(
    jobs: list[tuple[int, int, int, int, int]],
    processors: int,
    *,
    backfill: bool = True,
    rank: dict[int, int] | None = None,
) -> dict[int, int]:
    """Start time of each simulated job; ``jobs`` are (id, submit, run, procs, requested)."""
    rank = rank or {}
    sim = [(i, s, r, p, max(w, r)) for (i, s, r, p, w) in jobs if 0 < p <= processors and r >= 0]
    pending = sorted(sim, key=lambda j: (j[1], j[0]))
    queue: list[tuple[int, int, int, int, int]] = []
    running: list[tuple[int, int, int, int]] = []  # (id, end, expected end, procs)
    start: dict[int, int] = {}
    free = processors
    while pending or queue or running:
        times = [j[1] for j in pending] + [end for (_, end, _, _) in running]
        t = min(times)
        # 1. releases
        for done in [x for x in running if x[1] == t]:
            running.remove(done)
            free += done[3]
        # 2. arrivals
        for job in [x for x in pending if x[1] == t]:
            pending.remove(job)
            queue.append(job)
        queue.sort(key=lambda j: (rank.get(j[0], 0), j[1], j[0]))
        # 3a. start the head while it fits
        while queue and queue[0][3] <= free:
            i, s, r, p, w = queue.pop(0)
            start[i] = t
            if r > 0:
                running.append((i, t + r, t + w, p))
                free -= p
        if not queue or not backfill:
            continue
        # 3b. the head's reservation
        head_p = queue[0][3]
        avail = free
        shadow = None
        for _i, _end, expected, p in sorted(running, key=lambda x: (x[2], x[0])):
            avail += p
            if avail >= head_p:
                shadow = max(expected, t)
                break
        assert shadow is not None
        extra = free + sum(p for (_, _, e, p) in running if max(e, t) <= shadow) - head_p
        # 3c. backfill, one pass
        for waiting in list(queue[1:]):
            i, s, r, p, w = waiting
            if p > free:
                continue
            if t + w <= shadow:
                pass
            elif p <= extra:
                extra -= p
            else:
                continue
            queue.remove(waiting)
            start[i] = t
            if r > 0:
                running.append((i, t + r, t + w, p))
                free -= p
    return start
