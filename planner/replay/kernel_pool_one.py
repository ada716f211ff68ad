"""The pool kernel for one FCFS queue (the policy as written), with the block index of ``kernel_skip``.

Same steps, heaps and incremental pass as ``kernel_pool.run_pool`` (which serves several queue
priorities with linked lists); here the queue is the index range from the oldest waiting job to
the last arrival, so a backfill pass jumps over blocks of jobs none of which could start.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from planner.replay.kernel_pool import _end_pop, _end_push, _exp_push, _exp_remove, _shadow
from planner.replay.kernel_skip import index_add, index_next

# indices into the int64 state vector
T, FREE, NEXT_ARRIVAL, N_END, N_EXP, CLEAN, SHADOW, EXTRA, DONE, HEAD = range(10)
STATE_SIZE = 10
INF = np.iinfo(np.int64).max


@njit(cache=True)
def run_pool_one(submit, run, procs, req, tie, processors, backfill, incremental, start, state,
                 end_heap, exp_heap, pos, aux, p1, w1, p2, w2, p3, w3, stop_index):
    """Advance the replay until every arrival before ``stop_index`` has been handled (see run_pool)."""
    n = submit.shape[0]
    t = state[T]
    free = state[FREE]
    i_arr = state[NEXT_ARRIVAL]
    n_end = state[N_END]
    n_exp = state[N_EXP]
    clean = state[CLEAN]
    shadow = state[SHADOW]
    extra = state[EXTRA]
    head = state[HEAD]
    stop_time = submit[stop_index] if stop_index < n else INF
    events = 0
    while True:
        t_next = INF
        if i_arr < n:
            t_next = submit[i_arr]
        if n_end > 0 and start[end_heap[0]] + run[end_heap[0]] < t_next:
            t_next = start[end_heap[0]] + run[end_heap[0]]
        if t_next == INF or t_next >= stop_time:
            break
        t = t_next
        events += 1
        # 1. releases
        while n_end > 0 and start[end_heap[0]] + run[end_heap[0]] == t:
            j = end_heap[0]
            n_end = _end_pop(end_heap, n_end, start, run)
            free += procs[j]
            n_exp = _exp_remove(exp_heap, pos, n_exp, j, start, req, tie)
            clean = 0
        # 2. arrivals join the queue (the index range) and the block index
        first_new = i_arr
        while i_arr < n and submit[i_arr] == t:
            index_add(i_arr, procs[i_arr], req[i_arr], p1, w1, p2, w2, p3, w3)
            i_arr += 1
        # 3a. start the head while it fits
        while True:
            while head < i_arr and start[head] >= 0:
                head += 1
            if head >= i_arr or procs[head] > free:
                break
            start[head] = t
            clean = 0
            if run[head] > 0:
                free -= procs[head]
                _end_push(end_heap, n_end, head, start, run)
                n_end += 1
                _exp_push(exp_heap, pos, n_exp, head, start, req, tie)
                n_exp += 1
        if head >= i_arr or not backfill:
            clean = 0
            continue
        # 3b. the head's reservation (kept from the last pass when nothing changed since)
        if clean == 1 and incremental:
            if first_new >= i_arr:
                continue
            cursor = first_new  # only the new arrivals can start
        else:
            if index_next(head + 1, i_arr, free, INF, INF, start, procs, req, p1, w1, p2, w2, p3, w3) >= i_arr:
                clean = 0  # no waiting job fits the free processors: no reservation is needed this time
                continue
            shadow, extra = _shadow(exp_heap, n_exp, start, req, tie, procs, aux, free, procs[head], t)
            cursor = head + 1
        clean = 1
        # 3c. one backfill pass, jumping over blocks where no job could start
        while free > 0:
            j = index_next(cursor, i_arr, free, extra, shadow - t, start, procs, req, p1, w1, p2, w2, p3, w3)
            if j >= i_arr:
                break
            cursor = j + 1
            p = procs[j]
            if t + req[j] > shadow:
                extra -= p
                if run[j] == 0:
                    clean = 0  # charged to X but holds nothing: the next pass must look again
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
    state[HEAD] = head
    state[DONE] = 1 if (i_arr >= n and n_end == 0) else 0
    return events
