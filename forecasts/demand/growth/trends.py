"""The trend families with memory or breaks: piecewise-linear (1-2 breakpoints) and damped trend.

Same working scale and conventions as forecasts.demand.growth.families.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from .families import FitError, FloatArray, ModelFit, _cov_from_jac, _finish, _lsq, aicc_from_sse


def min_segment(n: int) -> int:
    """Minimum number of observations in each piecewise segment: max(4, 15% of n)."""
    return max(4, math.ceil(0.15 * n))


def _hinge_design(t: FloatArray, tc: float, knots: FloatArray) -> FloatArray:
    """Design matrices for many knot sets at once: knots (B, q) -> (B, n, 2 + q)."""
    B = knots.shape[0]
    base = np.broadcast_to(np.column_stack([np.ones_like(t), t - tc]), (B, t.size, 2))
    hinges = np.maximum(0.0, t[None, :, None] - knots[:, None, :])
    return np.concatenate([base, hinges], axis=2)


def _batched_ls(X: FloatArray, z: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Least squares for a batch of designs (B, n, p): coefficients (B, p) and SSE (B,)."""
    XtX = np.einsum("bni,bnj->bij", X, X)
    Xtz = np.einsum("bni,n->bi", X, z)
    p = X.shape[2]
    XtX = XtX + 1e-10 * np.trace(XtX, axis1=1, axis2=2)[:, None, None] * np.eye(p)[None]
    beta = np.linalg.solve(XtX, Xtz[..., None])[..., 0]
    resid = z[None, :] - np.einsum("bnp,bp->bn", X, beta)
    return beta, np.sum(resid**2, axis=1)


def fit_piecewise(t: FloatArray, z: FloatArray, loss: str = "linear", max_breaks: int = 2) -> ModelFit:
    """Continuous piecewise-linear trend with 1..max_breaks breakpoints at observed times.

    Every admissible knot set (each segment holds at least ``min_segment(n)`` points) is solved
    by batched least squares; the best set per number of breaks is kept and the number of breaks
    is chosen by AICc, counting each break as two parameters (location and slope change).
    """
    order = np.argsort(t)
    t, z = t[order], z[order]
    n = t.size
    m = min_segment(n)
    tc = float(t.mean())
    idx = np.arange(m, n - m + 1)
    if idx.size == 0:
        raise FitError(f"piecewise needs at least {2 * m + 1} points")
    best: tuple[float, FloatArray, FloatArray] | None = None  # aicc, knots, beta
    candidates: list[FloatArray] = [t[idx][:, None]]
    if max_breaks >= 2 and n >= 3 * m:
        i, j = np.meshgrid(idx, idx, indexing="ij")
        ok = (j - i >= m) & (j <= n - m)
        if ok.any():
            candidates.append(np.column_stack([t[i[ok]], t[j[ok]]]))
    for knots in candidates:
        beta, sse = _batched_ls(_hinge_design(t, tc, knots), z)
        b = int(np.argmin(sse))
        a = aicc_from_sse(float(sse[b]), n, 2 + 2 * knots.shape[1])
        if best is None or a < best[0]:
            best = (a, knots[b], beta[b])
    assert best is not None
    _, knots, theta = best
    X = _hinge_design(t, tc, knots[None, :])[0]
    lower, upper = np.full(X.shape[1], -np.inf), np.full(X.shape[1], np.inf)
    converged, message = True, "grid search + least squares"
    if loss != "linear":
        theta, converged, message = _lsq(lambda th: X @ th - z, lambda th: X, theta, lower, loss)
    fitted = X @ theta
    q = knots.size
    names = ("level_at_tc", "slope_1") + tuple(f"slope_change_{i + 1}" for i in range(q))
    extra = {"tc": tc, **{f"break_{i + 1}": float(kn) for i, kn in enumerate(knots)}}
    kn = knots.copy()

    def mean_fn(tt: FloatArray, th: FloatArray) -> FloatArray:
        H = np.maximum(0.0, tt[:, None] - kn[None, :])  # (h, q)
        return th[:, :1] + th[:, 1:2] * (tt - tc)[None, :] + th[:, 2:] @ H.T

    fit = ModelFit(
        "piecewise",
        theta,
        names,
        (True,) * (2 + q),
        _cov_from_jac(X, z - fitted),
        2 + 2 * q,
        t,
        z,
        fitted,
        converged,
        message,
        lower,
        upper,
        mean_fn,
        extra,
    )
    return _finish(fit)


DAMPED_GRID = (
    np.array([0.05, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 0.95]),  # alpha
    np.array([0.0, 0.05, 0.15, 0.3, 0.6]),  # beta / alpha
    np.array([0.8, 0.88, 0.94, 0.98]),  # phi
)
_ROBUST_RHO: dict[str, Callable[[FloatArray], FloatArray]] = {
    "soft_l1": lambda q: 2 * (np.sqrt(1 + q) - 1),
    "huber": lambda q: np.where(q <= 1, q, 2 * np.sqrt(q) - 1),
    "cauchy": np.log1p,
    "arctan": np.arctan,
}


def _damped_batch(
    zs: FloatArray, alpha: FloatArray, beta: FloatArray, phi: FloatArray
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """One-step predictions for B parameter sets at once over a regular grid (NaN = gap).

    The recursion is affine in the initial state, so it is run from state 0 on the data and
    from the unit states (1, 0) and (0, 1) on zero data: predictions = P0 + l0 PL + b0 PB.
    Returns P (B, n, 3) stacking P0, PL, PB, and final levels/trends (B, 3).
    """
    B, n = alpha.size, zs.size
    level = np.zeros((B, 3))
    level[:, 1] = 1.0
    trend = np.zeros((B, 3))
    trend[:, 2] = 1.0
    a, bt, ph = alpha[:, None], beta[:, None], phi[:, None]
    P = np.empty((B, n, 3))
    for i, y in enumerate(zs.tolist()):
        f = level + ph * trend
        P[:, i, :] = f
        if y == y:
            e = -f
            e[:, 0] += y
            level = f + a * e
            trend = ph * trend + bt * e
        else:
            level = f
            trend = ph * trend
    return P, level, trend


def _damped_solve(
    zs: FloatArray,
    pos: npt.NDArray[np.int64],
    z: FloatArray,
    alpha: FloatArray,
    beta: FloatArray,
    phi: FloatArray,
    loss: str,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Criterion, (l0, b0), predictions at the observations, and final state for each set."""
    P, level, trend = _damped_batch(zs, alpha, beta, phi)
    P = P[:, pos, :]
    X = P[:, :, 1:]  # (B, n, 2)
    target = z[None, :] - P[:, :, 0]
    XtX = np.einsum("bni,bnj->bij", X, X) + 1e-12 * np.eye(2)[None]
    init = np.linalg.solve(XtX, np.einsum("bni,bn->bi", X, target)[..., None])[..., 0]
    preds = P[:, :, 0] + np.einsum("bni,bi->bn", X, init)
    resid = z[None, :] - preds
    if loss == "linear":
        crit = np.sum(resid**2, axis=1)
    else:
        scale = max(1.4826 * float(np.median(np.abs(resid[0] - np.median(resid[0])))), 1e-6)
        crit = np.sum(_ROBUST_RHO[loss]((resid / scale) ** 2), axis=1)
    final = np.stack(
        [
            level[:, 0] + level[:, 1] * init[:, 0] + level[:, 2] * init[:, 1],
            trend[:, 0] + trend[:, 1] * init[:, 0] + trend[:, 2] * init[:, 1],
        ],
        axis=1,
    )
    return crit, init, preds, final


def fit_damped(t: FloatArray, z: FloatArray, loss: str = "linear") -> ModelFit:
    """ETS(A,Ad,N): level/trend smoothing with damping phi in [0.8, 0.98].

    The initial level and trend enter the one-step errors linearly, so they are solved exactly
    for every (alpha, beta, phi); those three are searched on a coarse grid and then on a finer
    grid around the best point, all parameter sets filtered at once (vectorised), which is far
    cheaper than a general optimiser on this recursive model.  Gaps are carried through the
    filter without update.
    """
    if t.size < 8:
        raise FitError("damped trend needs at least 8 points")
    ti = np.rint(t).astype(np.int64)
    t_start = int(ti.min())
    grid = np.full(int(ti.max()) - t_start + 1, np.nan)
    grid[ti - t_start] = z
    pos = ti - t_start
    A, Bs, F = np.meshgrid(*DAMPED_GRID, indexing="ij")
    alpha, share, phi = A.ravel(), Bs.ravel(), F.ravel()
    crit, _, _, _ = _damped_solve(grid, pos, z, alpha, alpha * share, phi, loss)
    b = int(np.argmin(crit))
    fine = np.meshgrid(
        np.clip(alpha[b] + np.array([-0.06, -0.03, 0, 0.03, 0.06]), 0.01, 0.99),
        np.clip(share[b] + np.array([-0.04, -0.02, 0, 0.02, 0.04]), 0.0, 1.0),
        np.clip(phi[b] + np.array([-0.03, -0.015, 0, 0.015, 0.03]), 0.8, 0.98),
        indexing="ij",
    )
    alpha, share, phi = (g.ravel() for g in fine)
    crit, init, preds, final = _damped_solve(grid, pos, z, alpha, alpha * share, phi, loss)
    b = int(np.argmin(crit))
    th = np.array([alpha[b], share[b], phi[b], init[b, 0], init[b, 1]])
    lower = np.array([0.01, 0.0, 0.8, -np.inf, -np.inf])
    upper = np.array([0.99, 1.0, 0.98, np.inf, np.inf])
    fit = ModelFit(
        "damped",
        th,
        ("alpha", "beta_share", "phi", "level_0", "trend_0"),
        (False, False, False, True, True),
        np.zeros((5, 5)),
        5,
        t,
        z,
        preds[b],
        True,
        "grid search, initial state by least squares",
        lower,
        upper,
        None,
        {"t_end": float(ti.max())},
        {
            "level": float(final[b, 0]),
            "trend": float(final[b, 1]),
            "alpha": float(alpha[b]),
            "beta": float(alpha[b] * share[b]),
            "phi": float(phi[b]),
            "t_end": float(ti.max()),
            "t_start": float(t_start),
        },
    )
    fit.rho = 0.0  # one-step errors are the innovations of the state-space model
    innov = fit.residuals - fit.residuals.mean()
    fit.innovations = innov * math.sqrt(fit.n / max(fit.n - fit.k, 1)) if innov.size else np.zeros(1)
    return fit
