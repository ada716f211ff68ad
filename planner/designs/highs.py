"""The optimiser's models solved with HiGHS through highspy, the HiGHS project's own bindings (pure core).

scipy.optimize.milp runs HiGHS too (its bundled 1.12) but takes no starting solution; highspy does
(``setSolution``), which the service-level plans use to hand HiGHS a feasible plan before branching
(planner.designs.warm_start), and gives the LP duals that price that plan. Single-demand plans stay
on scipy.optimize.milp (planner.designs.optimize: faster there). The result mirrors scipy's: ``status`` 0 optimal,
1 time limit, 2 infeasible, 3 unbounded, 4 other; ``x`` is None when no solution was found.
"""

from __future__ import annotations

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
    data, ri, ci = [], [], []
    for i, coefs in enumerate(rows):
        for j, val in coefs.items():
            ri.append(i)
            ci.append(j)
            data.append(val)
    return csc_array((data, (ri, ci)), shape=(len(rows), n_cols))


def solve_highs(m: Any, time_limit_s: float, gap: float, *, start: FloatArray | None = None,
                lb: list[float] | None = None, ub: list[float] | None = None, lp_only: bool = False) -> Solved:
    """Solve ``m`` (cost, lb, ub, integ, rows, rlb, rub lists) to ``gap``; ``lb``/``ub`` replace its bounds."""
    n = len(m.cost)
    a = row_matrix(m.rows, n)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, len(m.rows)
    lp.col_cost_ = np.asarray(m.cost, dtype=float)
    lp.col_lower_ = np.asarray(m.lb if lb is None else lb, dtype=float)
    lp.col_upper_ = np.asarray(m.ub if ub is None else ub, dtype=float)
    lp.row_lower_ = np.asarray(m.rlb, dtype=float)
    lp.row_upper_ = np.asarray(m.rub, dtype=float)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = a.indptr.astype(np.int32)
    lp.a_matrix_.index_ = a.indices.astype(np.int32)
    lp.a_matrix_.value_ = a.data.astype(float)
    mip = not lp_only and any(m.integ)
    if mip:
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                           for i in m.integ]
    # the bindings' solver class itself: highspy.Highs (a wrapper adding callbacks) prints a banner to stdout
    h = highspy._Highs()  # type: ignore[attr-defined]
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(time_limit_s))
    h.setOptionValue("mip_rel_gap", float(gap))
    h.setOptionValue("random_seed", 0)
    h.passModel(lp)
    if start is not None and mip:
        sol = highspy.HighsSolution()
        sol.col_value = list(np.asarray(start, dtype=float))
        sol.value_valid = True
        h.setSolution(sol)
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
    return Solved(status, h.modelStatusToString(ms), x, fun, mip_gap, bound, row_dual)
