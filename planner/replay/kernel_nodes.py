"""Compiled FCFS / EASY kernel in node mode: jobs are placed on a design's nodes (numba).

Placement rule (docs/replay.md):

* nodes are ordered narrowest type first (ties: the order the design lists them);
* a job of p processors with p <= the widest node's cores runs on ONE node: the first node, in
  that order, with at least p free cores (so it takes the narrowest node type that fits it and
  shares the node with other such jobs);
* a wider job takes WHOLE idle nodes, widest first, until their cores reach p; the cores it does
  not use on them stay idle (a whole-node job wastes the rest of its last node);
* a job wider than all the machine's cores is not simulated.

EASY in node mode follows the pool policy step by step. The head's reservation: running jobs
give their cores back, in (expected end, id) order, on a copy of the nodes until the head fits;
that job's expected end is the shadow time S (with every job ending at S given back too); the
head is then placed on the copy by the rule above, and what stays free on the copy is the "extra"
of each node. A queued job backfills when it fits now and either ends (expected) by S, or fits
on cores that are free both now and in the copy (which it then takes from both). FCFS is step 3a
alone. The head's cores at S are taken from cores busy now where it can, and a job backfilled
because it ends by S takes cores outside the extra first (``_place``), so
with one-core nodes node mode is the pool policy exactly (a test checks it job by job).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from planner.replay.kernel_pool import _end_pop, _end_push, _exp_push, _exp_remove, _less
from planner.replay.kernel_skip import index_add, index_next
from planner.replay.workload import I64, Machine

INF = np.iinfo(np.int64).max


@njit(cache=True)
def _capacity(avail, width, other, use_other):
    """(largest free cores on a node, cores of wholly idle nodes) of min(avail, other)."""
    best = 0
    idle = 0
    for m in range(avail.shape[0]):
        a = avail[m]
        if use_other and other[m] < a:
            a = other[m]
        if a > best:
            best = a
        if a == width[m]:
            idle += a
    return best, idle


@njit(cache=True)
def _fits(p, wmax, best, idle) -> bool:
    return p <= best if p <= wmax else p <= idle


@njit(cache=True)
def _place(j, p, wmax, avail, other, use_other, prefer, use_prefer, width, ntype,
           node_of, chain, record, sink, use_sink):
    """Take p cores (known to fit) for job j from ``avail`` by the placement rule.

    A node's usable cores are min(avail, other) when ``use_other``. With ``use_prefer`` the rule
    picks, among the nodes it may take, those with the fewest ``prefer`` cores: the head's place
    at S takes cores busy now (prefer = free now), a job backfilled because it ends by S takes
    cores the head's reservation leaves extra last (prefer = the extra copy). Whatever is taken
    from ``avail`` is also taken from ``sink`` when ``use_sink``; ``record`` notes where j runs.
    """
    n_nodes = avail.shape[0]
    if p <= wmax:
        chosen = -1
        for m in range(n_nodes):
            a = avail[m]
            if use_other and other[m] < a:
                a = other[m]
            if a >= p:
                if chosen < 0:
                    chosen = m
                    if not use_prefer:
                        break
                elif ntype[m] != ntype[chosen]:
                    break
                elif prefer[m] < prefer[chosen]:
                    chosen = m
        avail[chosen] -= p
        if use_sink:
            sink[chosen] -= p
        if record:
            node_of[j] = chosen
        return
    last = -1
    got = 0
    for second in range(2 if use_prefer else 1):
        for m in range(n_nodes - 1, -1, -1):
            if got >= p:
                return
            a = avail[m]
            if use_other and other[m] < a:
                a = other[m]
            if a != width[m]:
                continue
            if use_prefer and (prefer[m] < width[m]) == (second == 1):
                continue
            avail[m] = 0
            if use_sink:
                sink[m] -= width[m]
            if record:  # node_of[j] = -2 - first node; chain[m] = the job's next node (-1: last)
                if last < 0:
                    node_of[j] = -2 - m
                else:
                    chain[last] = m
                chain[m] = -1
                last = m
            got += width[m]


@njit(cache=True)
def _give_back(j, p, avail, width, node_of, chain):
    """Return job j's cores to ``avail``; returns (largest free cores on a node it freed, idle cores gained)."""
    m = node_of[j]
    if m >= 0:
        avail[m] += p
        return avail[m], (width[m] if avail[m] == width[m] else 0)
    m = -2 - m
    best = 0
    idle = 0
    while m >= 0:
        avail[m] = width[m]
        idle += width[m]
        if width[m] > best:
            best = width[m]
        m = chain[m]
    return best, idle


@njit(cache=True)
def _start(j, how, t, p, wmax, free_c, shadow_c, width, ntype, node_of, chain, start, run, req, tie,
           end_heap, n_end, exp_heap, pos, n_exp):
    """Start job j now: how 0 = it fits (step 3a), 1 = it ends by S, 2 = on extra cores. Returns heap sizes."""
    start[j] = t
    if run[j] == 0:
        if how == 2:  # charged to the extra cores for the rest of this pass, as in pool mode: pool mode
            # takes it from the cores free at S, not from those free now (the job holds none now), so
            # here it takes cores free at S on nodes busy now first, leaving the free-now ones to
            # the rest of the pass (one-core nodes then schedule exactly as the pool does)
            _place(j, p, wmax, shadow_c, shadow_c, False, free_c, True, width, ntype, node_of, chain, False,
                   shadow_c, False)
        return n_end, n_exp  # it needed the cores for an instant and holds none
    if how == 0:
        _place(j, p, wmax, free_c, free_c, False, free_c, False, width, ntype, node_of, chain, True, free_c, False)
    elif how == 1:
        _place(j, p, wmax, free_c, free_c, False, shadow_c, True, width, ntype, node_of, chain, True, shadow_c, False)
    else:
        _place(j, p, wmax, free_c, shadow_c, True, free_c, False, width, ntype, node_of, chain, True, shadow_c, True)
    _end_push(end_heap, n_end, j, start, run)
    _exp_push(exp_heap, pos, n_exp, j, start, req, tie)
    return n_end + 1, n_exp + 1


@njit(cache=True)
def run_nodes(submit, run, procs, req, tie, rank, n_ranks, width, ntype, backfill, start, node_of, chain, free_c):
    """Replay to the end; ``start`` is filled in place. Returns the number of event times.

    One queue: the index range and the block index of ``kernel_skip``; several priorities: lists.
    """
    n = submit.shape[0]
    n_nodes = width.shape[0]
    one = n_ranks == 1
    wmax = 0
    for m in range(n_nodes):
        if width[m] > wmax:
            wmax = width[m]
    qhead = np.full(n_ranks, -1, dtype=np.int64)
    qtail = np.full(n_ranks, -1, dtype=np.int64)
    nxt = np.full(1 if one else n, -1, dtype=np.int64)
    p1, w1, p2, w2, p3, w3 = new_index_arrays(n if one else 0)
    cap = n + 1
    end_heap = np.zeros(cap, dtype=np.int64)
    exp_heap = np.zeros(cap, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int64)
    aux = np.zeros(cap, dtype=np.int64)
    shadow_c = np.zeros(n_nodes, dtype=np.int64)
    n_end = 0
    n_exp = 0
    i_arr = 0
    head_ptr = 0
    events = 0
    while True:
        t = INF
        if i_arr < n:
            t = submit[i_arr]
        if n_end > 0 and start[end_heap[0]] + run[end_heap[0]] < t:
            t = start[end_heap[0]] + run[end_heap[0]]
        if t == INF:
            break
        events += 1
        while n_end > 0 and start[end_heap[0]] + run[end_heap[0]] == t:
            j = end_heap[0]
            n_end = _end_pop(end_heap, n_end, start, run)
            _give_back(j, procs[j], free_c, width, node_of, chain)
            n_exp = _exp_remove(exp_heap, pos, n_exp, j, start, req, tie)
        while i_arr < n and submit[i_arr] == t:
            j = i_arr
            if one:
                index_add(j, procs[j], req[j], p1, w1, p2, w2, p3, w3)
            else:
                q = rank[j]
                nxt[j] = -1
                if qtail[q] >= 0:
                    nxt[qtail[q]] = j
                else:
                    qhead[q] = j
                qtail[q] = j
            i_arr += 1
        best, idle = _capacity(free_c, width, free_c, False)
        head = -1
        while True:  # 3a. start the head while it fits
            head = -1
            if one:
                while head_ptr < i_arr and start[head_ptr] >= 0:
                    head_ptr += 1
                if head_ptr < i_arr:
                    head = head_ptr
            else:
                for q in range(n_ranks):
                    if qhead[q] >= 0:
                        head = qhead[q]
                        break
            if head < 0 or not _fits(procs[head], wmax, best, idle):
                break
            if one:
                start[head] = t
            else:
                q = rank[head]
                qhead[q] = nxt[head]
                if qhead[q] < 0:
                    qtail[q] = -1
            n_end, n_exp = _start(head, 0, t, procs[head], wmax, free_c, shadow_c, width, ntype, node_of, chain,
                                  start, run, req, tie, end_heap, n_end, exp_heap, pos, n_exp)
            best, idle = _capacity(free_c, width, free_c, False)
        if head < 0 or not backfill:
            continue
        if one and index_next(head + 1, i_arr, max(best, idle), INF, INF, start, procs, req,
                              p1, w1, p2, w2, p3, w3) >= i_arr:
            continue  # no waiting job fits the free cores: no reservation is needed this time
        # 3b. reservation: give running jobs back on a copy, by (expected end, id), until the head fits
        need = procs[head]
        for m in range(n_nodes):
            shadow_c[m] = free_c[m]
        sb, si = best, idle
        shadow = -1
        n_aux = 0
        if n_exp > 0:
            aux[0] = 0
            n_aux = 1
        while n_aux > 0:
            k = aux[0]
            n_aux -= 1
            if n_aux > 0:
                last = aux[n_aux]
                i = 0
                while True:
                    c = 2 * i + 1
                    if c >= n_aux:
                        break
                    if c + 1 < n_aux and _less(exp_heap[aux[c + 1]], exp_heap[aux[c]], start, req, tie):
                        c += 1
                    if _less(exp_heap[last], exp_heap[aux[c]], start, req, tie):
                        break
                    aux[i] = aux[c]
                    i = c
                aux[i] = last
            j = exp_heap[k]
            if shadow >= 0 and start[j] + req[j] != shadow:
                break
            got_best, got_idle = _give_back(j, procs[j], shadow_c, width, node_of, chain)
            if got_best > sb:
                sb = got_best
            si += got_idle
            if shadow < 0 and _fits(need, wmax, sb, si):
                shadow = start[j] + req[j]
            for child in (2 * k + 1, 2 * k + 2):
                if child < n_exp:
                    i = n_aux
                    n_aux += 1
                    while i > 0:
                        parent = (i - 1) >> 1
                        if _less(exp_heap[aux[parent]], exp_heap[child], start, req, tie):
                            break
                        aux[i] = aux[parent]
                        i = parent
                    aux[i] = child
        if shadow < t:
            shadow = t
        # the head's place at S, on the copy, on cores busy now where it can
        _place(head, need, wmax, shadow_c, shadow_c, False, free_c, True, width, ntype, node_of, chain, False,
               shadow_c, False)
        xb, xi = _capacity(free_c, width, shadow_c, True)
        # 3c. one backfill pass
        q = rank[head]
        cursor = head + 1 if one else nxt[head]
        prev = head
        while best > 0:
            if one:
                j = index_next(cursor, i_arr, max(best, idle), max(xb, xi), shadow - t, start, procs, req,
                               p1, w1, p2, w2, p3, w3)
                if j >= i_arr:
                    break
                cursor = j + 1
            else:
                if cursor < 0:
                    q += 1
                    while q < n_ranks and qhead[q] < 0:
                        q += 1
                    if q >= n_ranks:
                        break
                    cursor = qhead[q]
                    prev = -1
                j = cursor
                cursor = nxt[j]
            p = procs[j]
            how = 0
            if _fits(p, wmax, best, idle):
                if t + req[j] <= shadow:
                    how = 1
                elif _fits(p, wmax, xb, xi):
                    how = 2
            if how == 0:
                prev = j
                continue
            if one:
                start[j] = t
            else:
                if prev >= 0:
                    nxt[prev] = cursor
                else:
                    qhead[q] = cursor
                if cursor < 0:
                    qtail[q] = prev
            n_end, n_exp = _start(j, how, t, p, wmax, free_c, shadow_c, width, ntype, node_of, chain,
                                  start, run, req, tie, end_heap, n_end, exp_heap, pos, n_exp)
            best, idle = _capacity(free_c, width, free_c, False)
            xb, xi = _capacity(free_c, width, shadow_c, True)
    return events


@njit(cache=True)
def new_index_arrays(n):
    """The block index of ``kernel_skip`` (empty when n = 0: several queues use lists instead)."""
    out = []
    for shift in (6, 12, 18):
        size = (n >> shift) + 1
        out.append(np.full(size, INF, dtype=np.int64))
        out.append(np.full(size, INF, dtype=np.int64))
    return out[0], out[1], out[2], out[3], out[4], out[5]


def replay_nodes(submit: I64, run: I64, procs: I64, req: I64, tie: I64, rank: np.ndarray, n_ranks: int,
                 machine: Machine, backfill: bool, progress: object) -> tuple[I64, dict[str, float]]:
    """Run the node kernel for jobs already filtered and sorted; returns starts and node figures."""
    types = sorted(enumerate(machine.node_types), key=lambda it: (it[1].cores, it[0]))
    width = np.array([t.cores for _, t in types for _ in range(t.count)], dtype=np.int64)
    ntype = np.array([k for k, (_, t) in enumerate(types) for _ in range(t.count)], dtype=np.int64)
    n = len(submit)
    start = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return start, {"nodes": float(len(width))}
    node_of = np.full(n, -1, dtype=np.int64)
    chain = np.full(len(width), -1, dtype=np.int64)
    free_c = width.copy()
    run_nodes(submit, run, procs, req, tie, rank, n_ranks, width, ntype, backfill, start, node_of, chain, free_c)
    if callable(progress):
        progress(n, n)
    return start, {"nodes": float(len(width))}
