"""The optimiser's models solved with HiGHS through highspy, the HiGHS project's own bindings (pure core).

scipy.optimize.milp runs HiGHS too (its bundled 1.12) but takes no starting solution; highspy does
(``setSolution``), which the service-level plans use to hand HiGHS a feasible plan before branching
(planner.designs.warm_start), and gives the LP duals that price that plan. Single-demand plans stay
on scipy.optimize.milp (planner.designs.optimize: faster there). The result mirrors scipy's: ``status`` 0 optimal
(within the gap), 1 time limit, 2 infeasible, 3 unbounded, 4 other; ``x`` is None when no solution was found.

A service-level solve may run beside a second process (planner.designs.second_core) that proves its
own lower bound and finds its own plans; ``solve_highs`` then stops as soon as the best plan of either
is within the gap of the best bound of either, and returns that plan and that bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import highspy
import numpy as np
import numpy.typing as npt
from scipy.sparse import csc_array

FloatArray = npt.NDArray[np.float64]


@dataclass(slots=True)
class Solved:
    status: int
    message: str
    x: FloatArray | None
    fun: float
    mip_gap: float
    dual_bound: float
    row_dual: FloatArray | None = None  # LP solves only


@dataclass(slots=True)
class Arrays:
    """A model as plain arrays (picklable: what a second solver process receives)."""

    cost: FloatArray
    lb: FloatArray
    ub: FloatArray
    integ: npt.NDArray[np.int8]
    rlb: FloatArray
    rub: FloatArray
    start: npt.NDArray[np.int32]  # column-wise matrix
    index: npt.NDArray[np.int32]
    value: FloatArray

    @classmethod
    def of(cls, m: Any) -> Arrays:
        a = row_matrix(m.rows, len(m.cost))
        return cls(np.asarray(m.cost, dtype=float), np.asarray(m.lb, dtype=float), np.asarray(m.ub, dtype=float),
                   np.asarray(m.integ, dtype=np.int8), np.asarray(m.rlb, dtype=float), np.asarray(m.rub, dtype=float),
                   a.indptr.astype(np.int32), a.indices.astype(np.int32), a.data.astype(float))


def extend(arr: Arrays, n_new: int, rows: list[tuple[dict[int, float], float, float]]) -> Arrays:
    """``arr`` with ``n_new`` continuous columns in [0, 1] at cost 0 after its own and ``rows``
    (coefficients by column, lower, upper) after its rows: e.g. the service level's pair hulls."""
    n, r = len(arr.cost), len(arr.rlb)
    a = csc_array((arr.value, arr.index, arr.start), shape=(r, n)).tocoo()
    ri = [int(i) for i, (coefs, _, _) in enumerate(rows) for _ in coefs]
    ci = [int(j) for coefs, _, _ in rows for j in coefs]
    vi = [float(v) for coefs, _, _ in rows for v in coefs.values()]
    b = csc_array((np.concatenate([a.data, vi]), (np.concatenate([a.row, np.asarray(ri, dtype=np.int64) + r]),
                                                 np.concatenate([a.col, ci]))), shape=(r + len(rows), n + n_new))
    b.sort_indices()
    zeros = np.zeros(n_new)
    return Arrays(np.concatenate([arr.cost, zeros]), np.concatenate([arr.lb, zeros]),
                  np.concatenate([arr.ub, np.ones(n_new)]), np.concatenate([arr.integ, zeros.astype(np.int8)]),
                  np.concatenate([arr.rlb, [lo for _, lo, _ in rows]]),
                  np.concatenate([arr.rub, [hi for _, _, hi in rows]]),
                  b.indptr.astype(np.int32), b.indices.astype(np.int32), b.data.astype(float))


_STATUS = {
    highspy.HighsModelStatus.kOptimal: 0,
    highspy.HighsModelStatus.kTimeLimit: 1,
    highspy.HighsModelStatus.kIterationLimit: 1,
    highspy.HighsModelStatus.kSolutionLimit: 1,
    highspy.HighsModelStatus.kInfeasible: 2,
    highspy.HighsModelStatus.kUnbounded: 3,
    highspy.HighsModelStatus.kUnboundedOrInfeasible: 2,
}


def row_matrix(rows: list[dict[int, float]], n_cols: int) -> csc_array:
    """The constraint rows ({column: coefficient} each) as one sparse matrix (both solver paths use it)."""
    nnz = sum(len(coefs) for coefs in rows)
    ri = np.repeat(np.arange(len(rows)), [len(coefs) for coefs in rows])
    ci = np.fromiter((j for coefs in rows for j in coefs), dtype=np.int64, count=nnz)
    data = np.fromiter((v for coefs in rows for v in coefs.values()), dtype=float, count=nnz)
    return csc_array((data, (ri, ci)), shape=(len(rows), n_cols))


def relative_gap(primal: float, dual: float) -> float:
    """HiGHS's relative MIP gap: (primal - dual) / |primal| (0 when they meet, inf without a plan)."""
    if not math.isfinite(primal):
        return math.inf
    if primal == dual:
        return 0.0
    return max(primal - dual, 0.0) / max(abs(primal), 1e-12)


def highs_for(arr: Arrays, time_limit_s: float, gap: float, *, integer: npt.NDArray[np.bool_] | None = None,
              lb: Any = None, ub: Any = None, seed: int = 0, threads: int | None = None) -> Any:
    """A quiet HiGHS instance holding ``arr`` (``integer``: which columns stay integer; default ``arr.integ``)."""
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = len(arr.cost), len(arr.rlb)
    lp.col_cost_ = arr.cost
    lp.col_lower_ = arr.lb if lb is None else np.asarray(lb, dtype=float)
    lp.col_upper_ = arr.ub if ub is None else np.asarray(ub, dtype=float)
    lp.row_lower_, lp.row_upper_ = arr.rlb, arr.rub
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = arr.start, arr.index, arr.value
    mask = arr.integ.astype(bool) if integer is None else integer
    if mask.any():
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous for i in mask]
    # the bindings' solver class itself: highspy.Highs (a wrapper adding callbacks) prints a banner to stdout
    h = highspy._Highs()  # type: ignore[attr-defined]
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", max(float(time_limit_s), 0.01))
    h.setOptionValue("mip_rel_gap", float(gap))
    h.setOptionValue("random_seed", seed)
    if threads is not None:
        h.setOptionValue("threads", threads)
    h.passModel(lp)
    return h


def set_start(h: Any, x: FloatArray) -> None:
    sol = highspy.HighsSolution()
    sol.col_value = list(np.asarray(x, dtype=float))
    sol.value_valid = True
    h.setSolution(sol)


def on_mip_progress(h: Any, fn: Any, plans: Any = None) -> None:
    """Call ``fn(primal_bound, dual_bound, data_in)`` while HiGHS branches (``data_in.user_interrupt = True``
    stops it); ``plans()``, if given, returns a better plan found elsewhere (x, cost) or None, handed to HiGHS."""
    interrupt = highspy.cb.HighsCallbackType.kCallbackMipInterrupt

    def callback(kind: Any, _message: str, out: Any, data_in: Any, _user: Any) -> None:
        if kind == interrupt:
            fn(float(out.mip_primal_bound), float(out.mip_dual_bound), data_in)
            return
        got = plans()
        if got is not None and got[1] < float(out.mip_primal_bound):
            data_in.setSolution(np.asarray(got[0], dtype=float))

    h.setCallback(callback, None)
    h.startCallback(interrupt)
    if plans is not None:
        h.startCallback(highspy.cb.HighsCallbackType.kCallbackMipUserSolution)


def solve_highs(m: Any, time_limit_s: float, gap: float, *, start: FloatArray | None = None,
                lb: list[float] | None = None, ub: list[float] | None = None, lp_only: bool = False,
                partner: Any = None, arrays: Arrays | None = None) -> Solved:
    """Solve ``m`` (cost, lb, ub, integ, rows, rlb, rub lists) to ``gap``; ``lb``/``ub`` replace its bounds.

    ``partner`` (planner.designs.second_core.SecondCore): a second process's bound and plan, combined
    with HiGHS's own: HiGHS stops when either process's plan is within ``gap`` of either's bound.
    """
    arr = arrays if arrays is not None else Arrays.of(m)
    n = len(arr.cost)
    mip = not lp_only and bool(arr.integ.any())
    h = highs_for(arr, time_limit_s, gap, integer=arr.integ.astype(bool) if mip else np.zeros(n, dtype=bool),
                  lb=lb, ub=ub)
    if start is not None and mip:
        set_start(h, start)
    if partner is not None and mip:
        def check(primal: float, dual: float, data_in: Any) -> None:
            best, bound = partner.best(primal, dual)
            if relative_gap(best, bound) <= gap:
                data_in.user_interrupt = True

        on_mip_progress(h, check, partner.new_plan)
    h.run()
    ms = h.getModelStatus()
    info = h.getInfo()
    status = _STATUS.get(ms, 4)
    has_x = info.primal_solution_status == 2 or (status == 0 and n > 0)
    sol = h.getSolution()
    x = np.asarray(sol.col_value, dtype=float) if has_x else None
    fun = float(info.objective_function_value) if has_x else float("nan")
    row_dual = np.asarray(sol.row_dual, dtype=float) if (not mip and status == 0) else None
    mip_gap = float(info.mip_gap) if mip and has_x else 0.0
    bound = float(info.mip_dual_bound) if mip else fun
    message = h.modelStatusToString(ms)
    if partner is not None and mip:
        other = partner.finish()
        if other.x is not None and (x is None or other.fun < fun):
            x, fun = other.x, other.fun
        bound = max(bound, other.bound)
        if x is not None:
            mip_gap = relative_gap(fun, bound)
            if mip_gap <= gap:
                status, message = 0, "within the gap (the best plan and bound of both processes)"
            elif status not in (0, 1):
                status = 1
            message += f" (second process: {other.note})"
    return Solved(status, message, x, fun, mip_gap, bound, row_dual)
