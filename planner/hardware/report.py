"""Markdown tables of the calibration: fitted parameters, residuals, leave-one-out (pure core).

    python -m planner.hardware.report [BENCHMARKS.yaml] [--timing] [--steepness]

prints the tables docs/performance-model.md carries (with --steepness, also the sensitivity of the
leave-one-out to the shape of the H600's hit-ratio curve, five more leave-one-outs; with --timing,
the speed figures for docs/performance.md). The hardware page renders the same rows.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, replace

import numpy as np
from scipy.optimize import least_squares

from planner.hardware.calibration import Fit, LooTable, fit, leave_one_out
from planner.hardware.perf_inputs import DEFAULT_BENCHMARKS, BenchmarkSet, InputError, load_benchmarks
from planner.hardware.performance import machine_throughput


@dataclass(frozen=True, slots=True)
class UslFit:
    """Universal Scalability Law X(N) = lam N / (1 + sigma (N-1) + kappa N (N-1)), fitted in logs."""

    lam: float
    sigma: float
    kappa: float
    errors: list[tuple[float, float, float]]  # (N, measured, fitted)

    @property
    def worst_error(self) -> float:
        return max(abs(f / m - 1.0) for _, m, f in self.errors)


def usl_fit(points: list[tuple[float, float]]) -> UslFit:
    """Best USL through (concurrency, throughput) points (the alternative law the docs compare)."""
    n = np.array([p[0] for p in points], dtype=float)
    x = np.array([p[1] for p in points], dtype=float)

    def model(th: np.ndarray) -> np.ndarray:
        lam, sig, kap = np.exp(np.clip(th, -60.0, 60.0))
        return lam * n / (1.0 + sig * (n - 1.0) + kap * n * (n - 1.0))

    best = None
    for s0 in (1e-4, 1e-2, 0.3):
        for k0 in (1e-7, 1e-5, 1e-3):
            th0 = np.log([x[0] / n[0], s0, k0])
            res = least_squares(lambda th: np.log(model(th) / x), th0, method="lm")
            if best is None or res.cost < best.cost:
                best = res
    assert best is not None
    lam, sig, kap = (float(v) for v in np.exp(best.x))
    fitted = model(best.x)
    return UslFit(lam, sig, kap, [(float(a), float(b), float(c)) for a, b, c in zip(n, x, fitted, strict=True)])


def _num(v: float) -> str:
    if v == 0 or not math.isfinite(v):
        return f"{v:g}"
    mag = abs(v)
    if mag >= 100:
        return f"{v:,.0f}"
    if mag >= 10:
        return f"{v:.1f}"
    if mag >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def parameters_table(f: Fit) -> str:
    out = ["| parameter | fitted | 68 % interval | prior | prior's source |", "|---|---|---|---|---|"]
    for p in f.parameters:
        out.append(f"| `{p.path}` | {_num(p.value)} | {_num(p.low)} - {_num(p.high)} | {_num(p.prior)} "
                   f"| {p.source} |")
    return "\n".join(out)


def residuals_table(f: Fit) -> str:
    out = ["| observation | quantity | measured | fitted | error | source |", "|---|---|---|---|---|---|"]
    for r in f.residuals:
        out.append(f"| {r.observation} | {r.quantity} | {_num(r.measured)} | {_num(r.predicted)} "
                   f"| {r.error:+.1%} | {r.source} |")
    return "\n".join(out)


def loo_table(t: LooTable) -> str:
    out = ["| held back | quantity | measured | predicted without it | error | fitted with it |",
           "|---|---|---|---|---|---|"]
    for r in t.rows:
        out.append(f"| {r.observation} | {r.quantity} | {_num(r.measured)} | {_num(r.predicted)} "
                   f"| {r.error:+.1%} | {_num(r.in_sample)} |")
    out.append("")
    out.append(f"Leave-one-out median absolute error: {100 * t.median_abs_error:.1f} % "
               f"over {len(t.rows)} figures.")
    return "\n".join(out)


def ranges_table(f: Fit, t: LooTable) -> str:
    """The interval statements: the range the source gives, the fit, and the prediction held back."""
    out = ["| statement | quantity | published range | fitted | predicted without it | outside by | source |",
           "|---|---|---|---|---|---|---|"]
    fitted = {(r.observation, r.quantity): r.predicted for r in f.ranges}
    for r in t.ranges:
        out.append(f"| {r.observation} | {r.quantity} | {_num(r.low)} - {_num(r.high)} "
                   f"| {_num(fitted.get((r.observation, r.quantity), math.nan))} | {_num(r.predicted)} "
                   f"| {'inside' if r.inside else f'{r.error:+.1%}'} | {r.source} |")
    inside = sum(r.inside for r in t.ranges)
    out.append("")
    out.append(f"Held back, {inside} of {len(t.ranges)} interval statements are predicted inside their range.")
    return "\n".join(out)


STEEPNESS = (1.0, 2.0, 4.0, 8.0, 64.0)


def steepness_table(bset: BenchmarkSet, storage: str = "isilon-h600",
                    exponents: tuple[float, ...] = STEEPNESS) -> str:
    """Sensitivity of the fit and the leave-one-out to the shape of the fast tier's hit ratio past
    the knee (``hit_exponent``): a diagnosis, not a choice (the exponent is not fitted)."""
    out = ["| hit exponent k | fit cost | disk tier kIOPS (fitted) | h600-192 held back | h600-156 held back "
           "| lustre-80 held back | f800-189 held back | LOO median | worst | intervals inside |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for k in exponents:
        b = replace(bset, storages={**bset.storages, storage: replace(bset.storages[storage], hit_exponent=k)})
        f = fit(b)
        t = leave_one_out(b, f)
        worst = max(t.rows, key=lambda r: abs(r.error))

        def err(obs: str, t: LooTable = t) -> str:
            return f"{t.row(obs).error:+.0%}"

        out.append(f"| {k:g} | {f.cost:.2f} | {f.values[f'storages.{storage}.slow_kiops']:.1f} | {err('h600-192')} "
                   f"| {err('h600-156')} | {err('lustre-80')} | {err('f800-189')} "
                   f"| {100 * t.median_abs_error:.1f} % | {worst.observation} {worst.error:+.0%} "
                   f"| {sum(r.inside for r in t.ranges)} of {len(t.ranges)} |")
    return "\n".join(out)


def timing(path: str) -> str:
    bset = load_benchmarks(path)
    t0 = time.perf_counter()
    f = fit(bset)
    t_fit = time.perf_counter() - t0
    t0 = time.perf_counter()
    leave_one_out(bset, f)
    t_loo = time.perf_counter() - t0
    fb = f.fitted
    pipe, node = fb.pipelines["gatk-3.1.1-wgs"], fb.nodes["ivy-bridge"]
    st = fb.storages["ddn-sfa10k"].scaled(2, 160.0, fb.storages["flash-gss"].fast_kiops * 8)
    reps = 200
    t0 = time.perf_counter()
    for _ in range(reps):
        machine_throughput(pipe, node, 209, st, reserved_tb=70.0)
    t_eval = (time.perf_counter() - t0) / reps
    n_used = len(bset.used())
    return (f"- fit ({len(bset.priors)} parameters, {n_used} observations): {t_fit * 1000:.0f} ms\n"
            f"- leave-one-out ({n_used} refits): {t_loo:.2f} s\n"
            f"- one machine evaluation (node type x count x storage x flash): {t_eval * 1000:.2f} ms")


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    show_timing = "--timing" in args
    show_steepness = "--steepness" in args
    args = [a for a in args if a not in ("--timing", "--steepness")]
    path = args[0] if args else str(DEFAULT_BENCHMARKS)
    try:
        bset = load_benchmarks(path)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    f = fit(bset)
    t = leave_one_out(bset, f)
    h600 = [(o.nodes * o.samples_per_node, o.measured["genomes_per_day"]) for o in bset.used()
            if o.storage == "isilon-h600" and "genomes_per_day" in o.measured]
    usl = usl_fit(sorted(h600))
    print("## Fitted parameters\n")
    print(parameters_table(f))
    print(f"\nReduced chi-square of the data residuals: {f.chi2_reduced:.2f}\n")
    print("## Residuals of the fit\n")
    print(residuals_table(f))
    print("\n## Leave-one-out\n")
    print(loo_table(t))
    print("\n## Interval statements (censored observations)\n")
    print(ranges_table(f, t))
    print("\n## USL on the H600 points\n")
    print(f"lambda {usl.lam:.3g}, sigma {usl.sigma:.3g}, kappa {usl.kappa:.3g}; worst error "
          f"{usl.worst_error:.0%}: " + ", ".join(f"N={n:g}: {m:g} -> {p:.0f}" for n, m, p in usl.errors))
    if show_steepness:
        print("\n## Sensitivity to the hit ratio's steepness past the knee (isilon-h600)\n")
        print(steepness_table(bset))
    if show_timing:
        print("\n## Timing\n")
        print(timing(path))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
