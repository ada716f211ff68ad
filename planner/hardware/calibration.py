"""Calibrate the performance model to the benchmark observations (pure core, no Django).

Least squares (scipy.optimize.least_squares) on log(predicted / measured) / relative uncertainty
of every used observation, plus one residual per prior ((theta - prior) / sd in the transformed
space: log for positive quantities, logit for fractions), so a parameter the benchmarks do not
pin down stays at what is known about it (a spec sheet, a count in a paper) instead of wandering.

Uncertainty: covariance = (J^T J)^-1 at the optimum (J: Jacobian of the scaled residuals),
inflated by the reduced chi-square of the data residuals when it exceeds 1; reported as a 68 %
interval in natural units. Leave-one-out: every used observation is predicted by a fit to all the
others (docs/performance-model.md has the table and its median absolute error).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from statistics import median
from typing import Any

import numpy as np
from scipy.optimize import least_squares

from planner.hardware.perf_inputs import BenchmarkSet, Observation, Prior, get_value, split_path
from planner.hardware.performance import Pipeline, batch_run, genome_times, job_hours


def apply_values(bset: BenchmarkSet, values: dict[str, float]) -> BenchmarkSet:
    """A copy of ``bset`` with the values at ``values``' paths replaced, then ties applied."""
    out = replace(bset, nodes=dict(bset.nodes), storages=dict(bset.storages),
                  pipelines=dict(bset.pipelines), extras=dict(bset.extras))
    for path, val in values.items():
        _set(out, path, val)
    for tie in bset.ties:
        _set(out, tie.path, tie.factor * get_value(out, tie.equals))
    return out


def _set(bset: BenchmarkSet, path: str, value: float) -> None:
    section, name, fld = split_path(bset, path)
    if section == "extras":
        bset.extras[name] = value
        return
    items = getattr(bset, section)
    obj = items[name]
    if section == "pipelines" and fld.startswith("stages."):
        stage_name, _, sub = fld[len("stages."):].rpartition(".")
        pipe: Pipeline = obj
        kw: dict[str, Any] = {sub: value}
        stages = tuple(replace(s, **kw) if s.name == stage_name else s for s in pipe.stages)
        items[name] = replace(pipe, stages=stages)
        return
    items[name] = replace(obj, **{fld: value})


def _to_theta(prior: Prior, value: float) -> float:
    if prior.transform == "logit":
        v = min(max(value, 1e-9), 1 - 1e-9)
        return math.log(v / (1.0 - v))
    return math.log(value)


def _from_theta(prior: Prior, theta: float) -> float:
    if prior.transform == "logit":
        return 1.0 / (1.0 + math.exp(-theta))
    return math.exp(theta)


# ---- predictions -------------------------------------------------------------------------------
def predict(bset: BenchmarkSet, obs: Observation) -> dict[str, float]:
    """What the model says for each measured quantity of ``obs``."""
    pipe, node = bset.pipelines[obs.pipeline], bset.nodes[obs.node]
    if obs.kind == "per_genome":
        conc = obs.concurrency
        n = bset.extras[conc.removeprefix("extras.")] if isinstance(conc, str) else float(conc)
        t = genome_times(pipe, node, bset.storages[obs.storage], n)
        out = {"cpu_hours": t.cpu_hours, "wall_core_hours": t.wall_core_hours,
               "turnaround_hours": t.turnaround_hours}
    elif obs.kind == "job_hours":
        work = bset.extras[obs.work.removeprefix("extras.")]
        out = {"hours": job_hours(pipe, obs.stage, node, obs.threads, work)}
    else:
        run = batch_run(pipe, node, bset.storages[obs.storage], obs.nodes, obs.samples_per_node)
        out = {"genomes_per_day": run.genomes_per_day, "run_hours": run.run_hours}
    return {k: out[k] for k in (*obs.measured, *obs.ranges)}


SOLVERS: tuple[tuple[str, Any], ...] = (("trf", 1.0), ("dogbox", "jac"))
RANGE_EDGE = 0.01  # log units over which an interval's penalty turns on (keeps the Jacobian continuous)


def range_residual(predicted: float, low: float, high: float) -> float:
    """log distance of ``predicted`` from the interval [low, high] (0 inside it)."""
    p = max(predicted, 1e-300)
    if p < low:
        return math.log(p / low)
    if p > high:
        return math.log(p / high)
    return 0.0


def _range_penalty(predicted: float, low: float, high: float) -> float:
    """The fit's residual for an interval: 0 inside, |log distance| outside, rounded over RANGE_EDGE
    at the edges (sqrt(d^2 + e^2) - e) so least squares sees a smooth problem."""
    d = range_residual(predicted, low, high)
    return math.sqrt(d * d + RANGE_EDGE * RANGE_EDGE) - RANGE_EDGE


@dataclass(frozen=True, slots=True)
class RangeCheck:
    """An interval statement (a run time "between 11 and 13 hours") and what the model says."""

    observation: str
    quantity: str
    low: float
    high: float
    predicted: float
    source: str

    @property
    def inside(self) -> bool:
        return self.low * (1 - 1e-9) <= self.predicted <= self.high * (1 + 1e-9)

    @property
    def error(self) -> float:
        """Relative distance outside the interval (0 inside it)."""
        return math.exp(range_residual(self.predicted, self.low, self.high)) - 1.0


@dataclass(frozen=True, slots=True)
class Residual:
    observation: str
    quantity: str
    measured: float
    predicted: float
    source: str

    @property
    def error(self) -> float:
        """Relative error of the prediction: predicted / measured - 1."""
        return self.predicted / self.measured - 1.0


@dataclass(frozen=True, slots=True)
class FittedParameter:
    path: str
    value: float
    low: float  # 68 % interval, natural units
    high: float
    prior: float
    source: str

    @property
    def relative_sd(self) -> float:
        """Half the 68 % interval relative to the value (a +- figure)."""
        return (self.high - self.low) / 2.0 / self.value if self.value else math.inf


@dataclass(frozen=True, slots=True)
class Fit:
    parameters: list[FittedParameter]
    residuals: list[Residual]
    values: dict[str, float]  # fitted value of every prior path
    chi2_reduced: float
    success: bool
    message: str
    fitted: BenchmarkSet  # the inputs with the fitted values (and ties) applied
    ranges: list[RangeCheck] = field(default_factory=list)  # the interval statements, fitted
    cost: float = 0.0  # half the sum of squared scaled residuals (data and priors) at the optimum

    def parameter(self, path: str) -> FittedParameter:
        return next(p for p in self.parameters if p.path == path)

    @property
    def median_abs_error(self) -> float:
        return median(abs(r.error) for r in self.residuals) if self.residuals else 0.0


def _problem(bset: BenchmarkSet, observations: list[Observation]) -> tuple[Any, np.ndarray, int, int]:
    priors = bset.priors
    theta0 = np.array([_to_theta(p, p.value) for p in priors])
    sds = np.array([p.sd for p in priors])
    meas = [(o, k, v) for o in observations for k, v in o.measured.items()]
    rngs = [(o, k, lo, hi) for o in observations for k, (lo, hi) in o.ranges.items()]
    n_data = len(meas) + len(rngs)

    def fun(theta: np.ndarray) -> np.ndarray:
        vals = {p.path: _from_theta(p, float(t)) for p, t in zip(priors, theta, strict=True)}
        cur = apply_values(bset, vals)
        preds: dict[str, dict[str, float]] = {}
        res = np.empty(n_data + len(priors))
        for i, (o, k, v) in enumerate(meas):
            if o.id not in preds:
                preds[o.id] = predict(cur, o)
            pv = preds[o.id][k]
            res[i] = math.log(max(pv, 1e-300) / v) / o.rel_sd
        for j, (o, k, lo, hi) in enumerate(rngs):
            if o.id not in preds:
                preds[o.id] = predict(cur, o)
            res[len(meas) + j] = _range_penalty(preds[o.id][k], lo, hi) / o.rel_sd
        res[n_data:] = (theta - theta0) / sds
        return res

    return fun, theta0, len(meas), n_data


def fit(bset: BenchmarkSet, exclude: set[str] | frozenset[str] = frozenset(),
        start: dict[str, float] | None = None, solvers: tuple[tuple[str, Any], ...] = SOLVERS) -> Fit:
    """Fit every prior path to the used observations not in ``exclude``."""
    observations = [o for o in bset.used() if o.id not in exclude]
    fun, theta0, _, n_data = _problem(bset, observations)
    x0 = theta0.copy()
    if start:
        x0 = np.array([_to_theta(p, start.get(p.path, p.value)) for p in bset.priors])
    # the fast tier's knee and the interval statements make the problem non-smooth with more than
    # one local minimum: two trust-region variants, the lower cost wins (deterministic)
    res = min((least_squares(fun, x0, method=m, x_scale=xs, max_nfev=400 * (len(x0) + 1))
               for m, xs in solvers), key=lambda r: float(r.cost))
    theta = res.x
    values = {p.path: _from_theta(p, float(t)) for p, t in zip(bset.priors, theta, strict=True)}
    data_res = res.fun[:n_data]
    dof = max(1, n_data)
    chi2 = float(np.sum(data_res**2) / dof)
    jac = np.asarray(res.jac)
    cov = np.linalg.pinv(jac.T @ jac) * max(1.0, chi2)
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    params = [
        FittedParameter(p.path, values[p.path], _from_theta(p, float(t - s)), _from_theta(p, float(t + s)),
                        p.value, p.source)
        for p, t, s in zip(bset.priors, theta, sd, strict=True)
    ]
    fitted = apply_values(bset, values)
    residuals = [
        Residual(o.id, k, v, predict(fitted, o)[k], o.cite())
        for o in observations for k, v in o.measured.items()
    ]
    ranges = [RangeCheck(o.id, k, lo, hi, predict(fitted, o)[k], o.cite())
              for o in observations for k, (lo, hi) in o.ranges.items()]
    return Fit(params, residuals, values, chi2, bool(res.success), str(res.message), fitted, ranges,
               float(res.cost))


@dataclass(frozen=True, slots=True)
class LooRow:
    observation: str
    quantity: str
    measured: float
    predicted: float  # by a fit that never saw this observation
    in_sample: float  # by the fit to everything
    source: str

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1.0


@dataclass(frozen=True, slots=True)
class LooTable:
    rows: list[LooRow]  # the published figures: the median is over these
    ranges: list[RangeCheck] = field(default_factory=list)  # interval statements, each held back

    @property
    def median_abs_error(self) -> float:
        return median(abs(r.error) for r in self.rows) if self.rows else 0.0

    def row(self, observation: str, quantity: str | None = None) -> LooRow:
        return next(r for r in self.rows if r.observation == observation
                    and (quantity is None or r.quantity == quantity))


def leave_one_out(bset: BenchmarkSet, full: Fit | None = None) -> LooTable:
    """Each used observation predicted from a fit to all the others."""
    full = full or fit(bset)
    rows: list[LooRow] = []
    ranges: list[RangeCheck] = []
    for o in bset.used():
        # from the full fit's optimum one solver suffices (the same figures as both, half the time)
        part = fit(bset, exclude={o.id}, start=full.values, solvers=SOLVERS[:1])
        pred = predict(part.fitted, o)
        ins = predict(full.fitted, o)
        for k, v in o.measured.items():
            rows.append(LooRow(o.id, k, v, pred[k], ins[k], o.cite()))
        for k, (lo, hi) in o.ranges.items():
            ranges.append(RangeCheck(o.id, k, lo, hi, pred[k], o.cite()))
    return LooTable(rows, ranges)
