"""Compiled FCFS / EASY-backfilling kernel, processor-pool mode, exactly REPLAY-POLICY.md (numba).

The jobs arrive sorted by (submit, id) and already filtered to the ones that can run
(0 < p <= P, r >= 0, w >= r). Data structures, all preallocated numpy arrays:

* the queue: one singly-linked list per priority rank (``nxt``), each in (submit, id) order, so the
  whole queue is in (rank, submit, id) order; with one rank it is the policy's FCFS order;
* running jobs: a binary min-heap on the actual end (releases) and an indexed min-heap on
  (expected end, id), whose ``k`` smallest entries are visited in order with a small auxiliary
  heap to find the head's shadow time S and extra processors X without sorting;
* the backfill pass stops as soon as no processor is free (every job needs one).

Incremental pass: when nothing was released since the last pass, that pass ended with a blocked
head, and no zero-run-time job was charged to X in it, every job it looked at would be refused
again (free and X are what the pass left, S is unchanged because the jobs it backfilled before S
give their processors back by S, and t has grown) and the head is the same; so only the jobs that
arrived since are scanned, against the saved S and X. ``tests/planner/replay`` checks the kernel
job by job against a slow reference on random workloads, with and without this shortcut.

The state lives in arrays so a replay can run in chunks of arrivals (progress for a task).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# indices into the int64 state vector
T, FREE, NEXT_ARRIVAL, N_END, N_EXP, CLEAN, SHADOW, EXTRA, DONE = range(9)
STATE_SIZE = 9
INF = np.iinfo(np.int64).max


@njit(cache=True, inline="always")
def _less(a: int, b: int, start, dur, tie) -> bool:
    """(start + dur, tie) of job a before job b's: the (expected end, id) order."""
    ka = start[a] + dur[a]
    kb = start[b] + dur[b]
    return ka < kb or (ka == kb and tie[a] < tie[b])


@njit(cache=True)
def _exp_push(heap, pos, size, j, start, req, tie):
    k = size
    while k > 0:
        parent = (k - 1) >> 1
        q = heap[parent]
        if _less(q, j, start, req, tie):
            break
        heap[k] = q
        pos[q] = k
        k = parent
    heap[k] = j
    pos[j] = k


@njit(cache=True)
def _exp_remove(heap, pos, size, j, start, req, tie):
    """Remove job j from the indexed heap of ``size`` entries; returns the new size."""
    k = pos[j]
    pos[j] = -1
    size -= 1
    if k == size:
        return size
    last = heap[size]
    # sift up
    while k > 0:
        parent = (k - 1) >> 1
        q = heap[parent]
        if _less(q, last, start, req, tie):
            break
        heap[k] = q
        pos[q] = k
        k = parent
    # sift down
    while True:
        c = 2 * k + 1
        if c >= size:
            break
        q = heap[c]
        if c + 1 < size:
            q2 = heap[c + 1]
            if _less(q2, q, start, req, tie):
                c += 1
                q = q2
        if _less(last, q, start, req, tie):
            break
        heap[k] = q
        pos[q] = k
        k = c
    heap[k] = last
    pos[last] = k
    return size


@njit(cache=True)
def _end_push(heap, size, j, start, run):
    k = size
    end_j = start[j] + run[j]
    while k > 0:
        parent = (k - 1) >> 1
        q = heap[parent]
        if start[q] + run[q] <= end_j:
            break
        heap[k] = q
        k = parent
    heap[k] = j


@njit(cache=True)
def _end_pop(heap, size, start, run):
    """Pop the root of the end heap of ``size`` entries; returns the new size."""
    size -= 1
    last = heap[size]
    end_last = start[last] + run[last]
    k = 0
    while True:
        c = 2 * k + 1
        if c >= size:
            break
        if c + 1 < size and start[heap[c + 1]] + run[heap[c + 1]] < start[heap[c]] + run[heap[c]]:
            c += 1
        if end_last <= start[heap[c]] + run[heap[c]]:
            break
        heap[k] = heap[c]
        k = c
    if size > 0:
        heap[k] = last
    return size


@njit(cache=True)
def _shadow(exp_heap, n_exp, start, req, tie, procs, aux, free, need, t):
    """Walk running jobs by (expected end, id) until ``need`` processors are free: (S, X)."""
    avail = free
    shadow = -1
    n_aux = 0
    if n_exp > 0:
        aux[0] = 0
        n_aux = 1
    while n_aux > 0:
        # pop the smallest heap position from aux (a min-heap of positions keyed by the job there)
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
        if shadow >= 0 and (start[j] + req[j]) != shadow:
            break
        avail += procs[j]
        if shadow < 0 and avail >= need:
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
    return shadow, avail - need


@njit(cache=True)
def run_pool(submit, run, procs, req, tie, rank, n_ranks, processors, backfill, incremental,
             start, state, qhead, qtail, nxt, end_heap, exp_heap, pos, aux, stop_index):
    """Advance the replay until every arrival before ``stop_index`` has been handled.

    ``start`` is filled in place (-1 for a job not started yet); the other arrays are the kernel's
    working state, created by ``new_state``. Returns the number of event times processed.
    """
    n = submit.shape[0]
    t = state[T]
    free = state[FREE]
    i_arr = state[NEXT_ARRIVAL]
    n_end = state[N_END]
    n_exp = state[N_EXP]
    clean = state[CLEAN]
    shadow = state[SHADOW]
    extra = state[EXTRA]
    stop_time = submit[stop_index] if stop_index < n else INF
    events = 0
    while True:
        t_next = INF
        if i_arr < n:
            t_next = submit[i_arr]
        if n_end > 0 and (start[end_heap[0]] + run[end_heap[0]]) < t_next:
            t_next = (start[end_heap[0]] + run[end_heap[0]])
        if t_next == INF or t_next >= stop_time:
            break
        t = t_next
        events += 1
        # 1. releases
        while n_end > 0 and (start[end_heap[0]] + run[end_heap[0]]) == t:
            j = end_heap[0]
            n_end = _end_pop(end_heap, n_end, start, run)
            free += procs[j]
            n_exp = _exp_remove(exp_heap, pos, n_exp, j, start, req, tie)
            clean = 0
        # 2. arrivals, each appended to its rank's list
        first_new = -1
        old_tail = qtail[0]
        while i_arr < n and submit[i_arr] == t:
            j = i_arr
            q = rank[j]
            nxt[j] = -1
            if qtail[q] >= 0:
                nxt[qtail[q]] = j
            else:
                qhead[q] = j
            qtail[q] = j
            if first_new < 0:
                first_new = j
            i_arr += 1
        # 3a. start the head while it fits
        head = -1
        while True:
            head = -1
            for q in range(n_ranks):
                if qhead[q] >= 0:
                    head = qhead[q]
                    break
            if head < 0 or procs[head] > free:
                break
            q = rank[head]
            qhead[q] = nxt[head]
            if qhead[q] < 0:
                qtail[q] = -1
            start[head] = t
            clean = 0
            if run[head] > 0:
                free -= procs[head]
                _end_push(end_heap, n_end, head, start, run)
                n_end += 1
                _exp_push(exp_heap, pos, n_exp, head, start, req, tie)
                n_exp += 1
        if head < 0 or not backfill:
            clean = 0
            continue
        # 3b. the head's reservation (kept from the last pass when nothing changed since)
        if clean == 1 and incremental and n_ranks == 1:
            if first_new < 0:
                continue
            cursor = first_new  # only the new arrivals can start
            prev = old_tail
        else:
            shadow, extra = _shadow(exp_heap, n_exp, start, req, tie, procs, aux, free, procs[head], t)
            cursor = nxt[head]
            prev = head
        clean = 1
        # 3c. one backfill pass over the rest of the queue, in (rank, submit, id) order
        q = rank[head] if cursor < 0 else rank[cursor]
        while free > 0:
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
            go = False
            if p <= free:
                if t + req[j] <= shadow:
                    go = True
                elif p <= extra:
                    extra -= p
                    go = True
                    if run[j] == 0:
                        clean = 0  # charged to X but holds nothing: the next pass must look again
            if not go:
                prev = j
                continue
            if prev >= 0:
                nxt[prev] = cursor
            else:
                qhead[q] = cursor
            if cursor < 0:
                qtail[q] = prev
            start[j] = t
            if run[j] > 0:
                free -= p
                _end_push(end_heap, n_end, j, start, run)
                n_end += 1
                _exp_push(exp_heap, pos, n_exp, j, start, req, tie)
                n_exp += 1
    state[T] = t
    state[FREE] = free
    state[NEXT_ARRIVAL] = i_arr
    state[N_END] = n_end
    state[N_EXP] = n_exp
    state[CLEAN] = clean
    state[SHADOW] = shadow
    state[EXTRA] = extra
    state[DONE] = 1 if (i_arr >= n and n_end == 0) else 0
    return events
