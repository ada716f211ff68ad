"""Growth-curve families fitted on a *working scale* (pure numpy/scipy, no Django).

The working scale is the series after the optional log transform, divided by a positive
constant ``sz`` (the largest absolute working value) so that every optimiser sees numbers of
order one.  All families are homogeneous in that constant: the parameters flagged in
``ModelFit.amplitude`` scale with it, the others (rates, breakpoints, smoothing weights) do not.

Time ``t`` is measured in *periods* (months for a monthly series) with unit spacing; the
damped-trend family rounds ``t`` to whole periods.

Families (mean curve m(t); noise is additive on the working scale):

- ``linear``       m = a + b (t - tc)
- ``exponential``  m = a exp(b (t - tc))                 (needs mostly positive working values)
- ``logistic``     m = K / (1 + exp(-r (t - t0)))        (capacity K fitted or fixed)
- ``gompertz``     m = K exp(-b exp(-c (t - tc)))         (capacity K fitted or fixed)
- ``piecewise``    continuous linear with 1-2 breakpoints searched over a grid with a minimum
                   segment length, chosen by AICc; the last segment's slope is extrapolated
- ``damped``       additive damped-trend exponential smoothing (Holt/Gardner-McKenzie, ETS(A,Ad,N)),
                   parameters by least squares on one-step errors

``tc`` is the mean of the training times (decorrelates level and rate).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from scipy.optimize import least_squares

FloatArray = npt.NDArray[np.float64]
MeanFn = Callable[[FloatArray, FloatArray], FloatArray]  # (t (h,), theta (m, p)) -> (m, h)

ALL_FAMILIES: tuple[str, ...] = ("linear", "exponential", "logistic", "gompertz", "piecewise", "damped")
EXP_CLIP = 50.0  # exponent clip: keeps simulated paths finite for wild parameter draws
MAX_NFEV = 60  # least_squares budget; starting points are good, so convergence is quick


class FitError(ValueError):
    """A family cannot be fitted to this series (too short, wrong sign, optimiser failure)."""


@dataclass
class ModelFit:
    """One family fitted to scaled working values ``z`` at times ``t`` (finite points only)."""

    family: str
    theta: FloatArray
    names: tuple[str, ...]
    amplitude: tuple[bool, ...]
    cov: FloatArray
    k: int  # parameters counted by AICc besides sigma (breakpoints included)
    t: FloatArray
    z: FloatArray
    fitted: FloatArray
    converged: bool
    message: str
    lower: FloatArray
    upper: FloatArray
    mean_fn: MeanFn | None = None
    extra: dict[str, float] = field(default_factory=dict)  # reported as-is (t units)
    state: dict[str, float] = field(default_factory=dict)  # damped: level, trend, weights
    rho: float = 0.0  # lag-1 autocorrelation of residuals used by the AR(1) bootstrap
    innovations: FloatArray = field(default_factory=lambda: np.zeros(1))

    @property
    def n(self) -> int:
        return int(self.z.size)

    @property
    def residuals(self) -> FloatArray:
        return self.z - self.fitted

    @property
    def sse(self) -> float:
        return float(np.sum(self.residuals**2))

    def aicc(self) -> float:
        """Gaussian AICc on the scaled working values (sigma counted as a parameter)."""
        return aicc_from_sse(self.sse, self.n, self.k)

    def report(self, sz: float) -> dict[str, float]:
        """Parameters on the working scale (log units when log-transformed), unscaled by ``sz``."""
        triples = zip(self.names, self.theta, self.amplitude, strict=True)
        out = {name: float(v * sz if amp else v) for name, v, amp in triples}
        out.update(self.extra)
        return out


def aicc_from_sse(sse: float, n: int, k: int) -> float:
    """AICc of a Gaussian model with k mean parameters plus sigma; inf when n is too small."""
    p = k + 1
    if n - p - 1 <= 0:
        return math.inf
    sse = max(sse, 1e-300)
    return n * math.log(sse / n) + 2 * p + 2 * p * (p + 1) / (n - p - 1)


def _cov_from_jac(jac: FloatArray, resid: FloatArray) -> FloatArray:
    n, p = jac.shape
    s2 = float(np.sum(resid**2)) / max(n - p, 1)
    return s2 * np.linalg.pinv(jac.T @ jac)


def _lsq(
    fun: Callable[[FloatArray], FloatArray],
    jac: Callable[[FloatArray], FloatArray],
    x0: FloatArray,
    lower: FloatArray,
    loss: str,
    max_nfev: int = MAX_NFEV,
) -> tuple[FloatArray, bool, str]:
    """scipy ``least_squares`` with analytic Jacobian; parameters with a finite entry in
    ``lower`` are kept above it.

    Plain least squares runs MINPACK's Levenberg-Marquardt (``method='lm'``, several times
    faster than 'trf' on these small problems) with the bounded parameters written as
    lower + exp(u); robust losses need 'trf', which takes the bounds directly.
    """
    pos = np.isfinite(lower)
    lo = np.where(pos, lower, 0.0)
    x0 = np.where(pos, np.maximum(x0, lo + 1e-9 * (1 + np.abs(lo))), x0)
    if loss == "linear":

        def from_u(u: FloatArray) -> tuple[FloatArray, FloatArray]:
            ex = np.exp(np.clip(u, -700, 300))
            return np.where(pos, lo + ex, u), np.where(pos, ex, 1.0)

        def fun_u(u: FloatArray) -> FloatArray:
            return fun(from_u(u)[0])

        def jac_u(u: FloatArray) -> FloatArray:
            x, dx = from_u(u)
            return jac(x) * dx[None, :]

        u0 = np.where(pos, np.log(np.maximum(x0 - lo, 1e-300)), x0)
        res = least_squares(fun_u, u0, jac=jac_u, method="lm", max_nfev=max_nfev, ftol=1e-7, xtol=1e-7)
        return from_u(res.x)[0], bool(res.status > 0), str(res.message)
    r0 = fun(x0)
    f_scale = max(1.4826 * float(np.median(np.abs(r0 - np.median(r0)))), 1e-6)
    res = least_squares(
        fun,
        x0,
        jac=jac,
        bounds=(lower, np.full_like(lower, np.inf)),
        loss=loss,
        f_scale=f_scale,
        max_nfev=max_nfev,
        x_scale="jac",
    )
    return res.x, bool(res.status > 0), str(res.message)


def _ar1(resid: FloatArray, k: int) -> tuple[float, FloatArray]:
    """Lag-1 autocorrelation (0 unless significant, clipped to [0, 0.95]) and centred innovations.

    Innovations are inflated by sqrt(n / (n - k)) for the degrees of freedom the fit used.
    """
    n = resid.size
    rho = 0.0
    if n >= 8:
        r = resid - resid.mean()
        denom = float(r @ r)
        if denom > 0:
            rho = float(r[1:] @ r[:-1]) / denom
        if rho < 2 / math.sqrt(n):
            rho = 0.0
        rho = min(rho, 0.95)
    innov = resid[1:] - rho * resid[:-1] if rho > 0 else resid.copy()
    innov = innov - innov.mean()
    innov = innov * math.sqrt(n / max(n - k, 1))
    if innov.size == 0 or not np.any(innov):
        innov = np.zeros(1)
    return rho, innov


def _finish(fit: ModelFit) -> ModelFit:
    fit.rho, fit.innovations = _ar1(fit.residuals, fit.k)
    return fit


def fit_linear(t: FloatArray, z: FloatArray, loss: str = "linear") -> ModelFit:
    """Ordinary (or robust) straight line; analytic least squares when ``loss='linear'``."""
    if t.size < 3:
        raise FitError("linear needs at least 3 points")
    tc = float(t.mean())
    X = np.column_stack([np.ones_like(t), t - tc])
    theta: FloatArray = np.asarray(np.linalg.lstsq(X, z, rcond=None)[0], dtype=np.float64)
    lower, upper = np.full(2, -np.inf), np.full(2, np.inf)
    converged, message = True, "analytic least squares"
    if loss != "linear":
        theta, converged, message = _lsq(lambda th: X @ th - z, lambda th: X, theta, lower, loss)
    fitted = X @ theta

    def mean_fn(tt: FloatArray, th: FloatArray) -> FloatArray:
        return th[:, :1] + th[:, 1:2] * (tt - tc)[None, :]

    return _finish(
        ModelFit(
            "linear",
            theta,
            ("level_at_tc", "slope"),
            (True, True),
            _cov_from_jac(X, z - fitted),
            2,
            t,
            z,
            fitted,
            converged,
            message,
            lower,
            upper,
            mean_fn,
            {"tc": tc},
        )
    )


def fit_exponential(t: FloatArray, z: FloatArray, loss: str = "linear") -> ModelFit:
    """m = a exp(b (t - tc)); started from the log-linear fit."""
    if t.size < 4 or np.mean(z > 0) < 0.5:
        raise FitError("exponential needs 4+ points, mostly positive")
    tc = float(t.mean())
    u = t - tc
    c = np.polyfit(u, np.log(np.maximum(z, 1e-3 * float(np.abs(z).max()))), 1)
    x0 = np.array([math.exp(c[1]), c[0]])
    lower, upper = np.array([1e-12, -np.inf]), np.full(2, np.inf)

    def fun(th: FloatArray) -> FloatArray:
        return th[0] * np.exp(np.clip(th[1] * u, -EXP_CLIP, EXP_CLIP)) - z

    def jac(th: FloatArray) -> FloatArray:
        e = np.exp(np.clip(th[1] * u, -EXP_CLIP, EXP_CLIP))
        return np.column_stack([e, th[0] * u * e])

    theta, ok, msg = _lsq(fun, jac, x0, lower, loss)
    J = jac(theta)
    fitted = fun(theta) + z

    def mean_fn(tt: FloatArray, th: FloatArray) -> FloatArray:
        return th[:, :1] * np.exp(np.clip(th[:, 1:2] * (tt - tc)[None, :], -EXP_CLIP, EXP_CLIP))

    return _finish(
        ModelFit(
            "exponential",
            theta,
            ("level_at_tc", "rate"),
            (True, False),
            _cov_from_jac(J, z - fitted),
            2,
            t,
            z,
            fitted,
            ok,
            msg,
            lower,
            upper,
            mean_fn,
            {"tc": tc},
        )
    )


def _ols_line(x: FloatArray, y: FloatArray) -> tuple[float, float]:
    """Slope and intercept of y on x."""
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)


def fit_logistic(
    t: FloatArray, z: FloatArray, loss: str = "linear", capacity: float | None = None
) -> ModelFit:
    """m = K / (1 + exp(-r (t - t0))); K fixed when ``capacity`` (scaled working units) is given.

    Start: for a few candidate capacities, the logit-linear regression gives r and t0; the
    candidate with the smallest SSE seeds least_squares.
    """
    n_free = 2 if capacity is not None else 3
    if t.size < n_free + 3 or float(z.max()) <= 0:
        raise FitError("logistic needs positive values and enough points")
    span = float(t.max() - t.min()) or 1.0
    zmax = float(z.max())
    best: tuple[float, FloatArray] | None = None
    for k0 in [capacity] if capacity is not None else [1.05 * zmax, 1.3 * zmax, 2.0 * zmax, 4.0 * zmax]:
        p = np.clip(z / k0, 1e-4, 1 - 1e-4)
        r, icpt = _ols_line(t, np.log(p / (1 - p)))
        t0 = -icpt / r if abs(r) > 1e-9 else float(t.mean())
        t0 = float(np.clip(t0, t.min() - 10 * span, t.max() + 10 * span))
        cand = np.array([k0, r, t0])
        sse = float(np.sum((_logistic(t, cand) - z) ** 2))
        if best is None or sse < best[0]:
            best = (sse, cand)
    assert best is not None
    full_lower = np.array([1e-9, -np.inf, -np.inf])
    full_upper = np.full(3, np.inf)
    free = slice(1, 3) if capacity is not None else slice(0, 3)
    kfix = capacity

    def expand(th: FloatArray) -> FloatArray:
        return np.concatenate([[kfix], th]) if kfix is not None else th

    def fun(th: FloatArray) -> FloatArray:
        return _logistic(t, expand(th)) - z

    def jac(th: FloatArray) -> FloatArray:
        K, r, t0 = expand(th)
        s = 1 / (1 + np.exp(np.clip(-r * (t - t0), -EXP_CLIP, EXP_CLIP)))
        ds = K * s * (1 - s)
        J = np.column_stack([s, ds * (t - t0), -ds * r])
        return J[:, free]

    theta_free, ok, msg = _lsq(fun, jac, best[1][free], full_lower[free], loss)
    J = jac(theta_free)
    theta = expand(theta_free)
    fitted = _logistic(t, theta)
    cov = np.zeros((3, 3))
    cov[free, free] = _cov_from_jac(J, z - fitted)

    def mean_fn(tt: FloatArray, th: FloatArray) -> FloatArray:
        return th[:, :1] / (
            1 + np.exp(np.clip(-th[:, 1:2] * (tt[None, :] - th[:, 2:3]), -EXP_CLIP, EXP_CLIP))
        )

    return _finish(
        ModelFit(
            "logistic",
            theta,
            ("capacity", "rate", "midpoint"),
            (True, False, False),
            cov,
            n_free,
            t,
            z,
            fitted,
            ok,
            msg,
            full_lower,
            full_upper,
            mean_fn,
        )
    )


def _logistic(t: FloatArray, th: FloatArray) -> FloatArray:
    return th[0] / (1 + np.exp(np.clip(-th[1] * (t - th[2]), -EXP_CLIP, EXP_CLIP)))


def fit_gompertz(
    t: FloatArray, z: FloatArray, loss: str = "linear", capacity: float | None = None
) -> ModelFit:
    """m = K exp(-b exp(-c (t - tc))); started from the log-log-linear regression."""
    n_free = 2 if capacity is not None else 3
    if t.size < n_free + 3 or float(z.max()) <= 0:
        raise FitError("gompertz needs positive values and enough points")
    tc = float(t.mean())
    u = t - tc
    zmax = float(z.max())
    best: tuple[float, FloatArray] | None = None
    for k0 in [capacity] if capacity is not None else [1.05 * zmax, 1.3 * zmax, 2.0 * zmax, 4.0 * zmax]:
        p = np.clip(z / k0, 1e-6, 1 - 1e-6)
        slope, icpt = _ols_line(u, np.log(-np.log(p)))
        cand = np.array([k0, float(np.clip(math.exp(icpt), 1e-6, 1e6)), float(np.clip(-slope, -5, 5))])
        sse = float(np.sum((_gompertz(u, cand) - z) ** 2))
        if best is None or sse < best[0]:
            best = (sse, cand)
    assert best is not None
    full_lower = np.array([1e-9, 1e-12, -np.inf])
    full_upper = np.full(3, np.inf)
    free = slice(1, 3) if capacity is not None else slice(0, 3)
    kfix = capacity

    def expand(th: FloatArray) -> FloatArray:
        return np.concatenate([[kfix], th]) if kfix is not None else th

    def fun(th: FloatArray) -> FloatArray:
        return _gompertz(u, expand(th)) - z

    def jac(th: FloatArray) -> FloatArray:
        K, b, c = expand(th)
        g = np.exp(np.clip(-c * u, -EXP_CLIP, EXP_CLIP))
        e = np.exp(np.clip(-b * g, -EXP_CLIP, EXP_CLIP))
        J = np.column_stack([e, -K * e * g, K * e * b * g * u])
        return J[:, free]

    theta_free, ok, msg = _lsq(fun, jac, best[1][free], full_lower[free], loss)
    J = jac(theta_free)
    theta = expand(theta_free)
    fitted = _gompertz(u, theta)
    cov = np.zeros((3, 3))
    cov[free, free] = _cov_from_jac(J, z - fitted)

    def mean_fn(tt: FloatArray, th: FloatArray) -> FloatArray:
        g = np.exp(np.clip(-th[:, 2:3] * (tt - tc)[None, :], -EXP_CLIP, EXP_CLIP))
        return th[:, :1] * np.exp(np.clip(-th[:, 1:2] * g, -EXP_CLIP, EXP_CLIP))

    return _finish(
        ModelFit(
            "gompertz",
            theta,
            ("capacity", "displacement", "rate"),
            (True, False, False),
            cov,
            n_free,
            t,
            z,
            fitted,
            ok,
            msg,
            full_lower,
            full_upper,
            mean_fn,
            {"tc": tc},
        )
    )


def _gompertz(u: FloatArray, th: FloatArray) -> FloatArray:
    g = np.exp(np.clip(-th[2] * u, -EXP_CLIP, EXP_CLIP))
    return th[0] * np.exp(np.clip(-th[1] * g, -EXP_CLIP, EXP_CLIP))


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


def fit_family(
    family: str, t: FloatArray, z: FloatArray, loss: str = "linear", capacity: float | None = None
) -> ModelFit:
    """Fit one family by name (``capacity`` only affects logistic and Gompertz)."""
    if family == "linear":
        return fit_linear(t, z, loss)
    if family == "exponential":
        return fit_exponential(t, z, loss)
    if family == "logistic":
        return fit_logistic(t, z, loss, capacity)
    if family == "gompertz":
        return fit_gompertz(t, z, loss, capacity)
    if family == "piecewise":
        return fit_piecewise(t, z, loss)
    if family == "damped":
        return fit_damped(t, z, loss)
    raise ValueError(f"unknown family {family!r}; choose from {', '.join(ALL_FAMILIES)}")


def in_sample(fit: ModelFit, t: FloatArray) -> FloatArray:
    """Model values at arbitrary in-sample times (gaps included): the curve, or the filter."""
    if fit.mean_fn is not None:
        return fit.mean_fn(t, fit.theta[None, :])[0]
    s = fit.state
    th = fit.theta
    ti = np.rint(t).astype(np.int64)
    t_start = int(s["t_start"])
    grid = np.full(int(s["t_end"]) - t_start + 1, np.nan)
    grid[np.rint(fit.t).astype(np.int64) - t_start] = fit.z
    P, _, _ = _damped_batch(grid, th[:1], th[:1] * th[1:2], th[2:3])
    p = P[0, :, 0] + P[0, :, 1] * th[3] + P[0, :, 2] * th[4]
    inside = (ti >= t_start) & (ti - t_start < p.size)
    out: FloatArray = np.where(inside, p[np.clip(ti - t_start, 0, p.size - 1)], np.nan)
    return out


def _steps(fit: ModelFit, t_future: FloatArray) -> npt.NDArray[np.int64]:
    t_last = fit.state["t_end"] if fit.family == "damped" else float(fit.t.max())
    return np.maximum(1, np.rint(t_future - t_last).astype(np.int64))


def point_forecast(fit: ModelFit, t_future: FloatArray) -> FloatArray:
    """Conditional mean on the scaled working scale (curve + decaying last residual)."""
    steps = _steps(fit, t_future)
    if fit.family == "damped":
        s = fit.state
        damp = np.cumsum(s["phi"] ** np.arange(1, int(steps.max()) + 1))
        return s["level"] + damp[steps - 1] * s["trend"]
    assert fit.mean_fn is not None
    curve = fit.mean_fn(t_future, fit.theta[None, :])[0]
    last = float(fit.residuals[np.argmax(fit.t)])
    return curve + last * fit.rho**steps


def simulate(fit: ModelFit, t_future: FloatArray, n_paths: int, rng: np.random.Generator) -> FloatArray:
    """Future paths (n_paths, h) on the scaled working scale.

    Curve families: the fitted curve, plus parameter uncertainty propagated by the delta method
    (a Gaussian draw with covariance G cov G', G the curve's gradient at the future times, so
    weakly identified parameters such as an unreached capacity cannot produce absurd paths),
    plus AR(1) noise whose innovations are resampled from the fit's residuals, started at the last
    residual.  Damped trend: the state-space recursion driven by resampled one-step errors
    (parameter uncertainty of the smoothing weights is not propagated).
    """
    steps = _steps(fit, t_future)
    smax = int(steps.max())
    innov = fit.innovations[rng.integers(0, fit.innovations.size, size=(n_paths, smax))]
    if fit.family == "damped":
        s = fit.state
        level = np.full(n_paths, s["level"])
        trend = np.full(n_paths, s["trend"])
        out = np.empty((n_paths, smax))
        for h in range(smax):
            f = level + s["phi"] * trend
            e = innov[:, h]
            out[:, h] = f + e
            level = f + s["alpha"] * e
            trend = s["phi"] * trend + s["beta"] * e
        return out[:, steps - 1]
    assert fit.mean_fn is not None
    curve = fit.mean_fn(t_future, fit.theta[None, :])[0][None, :] + _curve_perturbation(
        fit, t_future, n_paths, rng
    )
    noise = np.empty((n_paths, smax))
    e = np.full(n_paths, float(fit.residuals[np.argmax(fit.t)]))
    for h in range(smax):
        e = fit.rho * e + innov[:, h]
        noise[:, h] = e
    return curve + noise[:, steps - 1]


def _curve_perturbation(
    fit: ModelFit, t_future: FloatArray, n_paths: int, rng: np.random.Generator
) -> FloatArray:
    """Draws (n_paths, h) of the linearised curve error G @ (theta_hat - theta)."""
    assert fit.mean_fn is not None
    p = fit.theta.size
    step = 1e-6 * (1 + np.abs(fit.theta))
    thetas = np.vstack([fit.theta, fit.theta + np.diag(step)])
    m = fit.mean_fn(t_future, thetas)
    G = (m[1:] - m[0][None, :]) / step[:, None]  # (p, h)
    w, V = np.linalg.eigh((fit.cov + fit.cov.T) / 2)
    A = V * np.sqrt(np.clip(w, 0, None))[None, :]  # cov = A A'
    out: FloatArray = rng.standard_normal((n_paths, p)) @ (A.T @ G)
    return out
