"""Fitting a family by name, its in-sample values, point forecasts and simulated paths."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .families import (
    ALL_FAMILIES,
    FloatArray,
    ModelFit,
    fit_exponential,
    fit_gompertz,
    fit_linear,
    fit_logistic,
)
from .trends import _damped_batch, fit_damped, fit_piecewise


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
