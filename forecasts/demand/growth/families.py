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
