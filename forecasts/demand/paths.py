"""Joint yearly demand paths: the forecast's sample paths and the sequencer plan's spread, path by path.

A design is judged against demand that is uncertain, and the years are not independent: a fleet
that grows faster in 2026 is still bigger in 2027. So demand is carried as whole trajectories
(``n_paths`` x years), never as per-year quantiles added together (the sum of two p90s is not
the p90 of the sum). Pure core: numpy only, no Django.

Conventions
- Core-hours per *calendar year*, on the design's reference core. A forecast's monthly paths are
  summed per calendar year; a year with fewer than 12 forecast months is *partial* and is left
  out (its name is kept in ``partial_years`` so a page can say why it is missing).
- Storage is the level held at year end (decimal TB): the December value of a monthly path.
- The sequencer plan's spread is multiplicative and held for the whole path: one draw per path
  for the fleet size (instrument counts), samples per instrument, and core-hours per genome, each
  triangular (low, 1, high). Genomes/day and ingest scale with fleet x samples; plan core-hours
  with fleet x samples x hours per genome; plan storage with fleet x samples. Holding a draw for
  the whole path is the conservative reading (a plan that is 20% optimistic is optimistic every
  year); it keeps the correlation between years that a purchase plan must survive.
- Trend and plan are independent: path i of the total is trend path i plus plan path i, each drawn
  independently.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

QUANTITIES = ("core_hours", "storage_tb", "genomes_per_day", "ingest_tb_per_day")
LABELS = {"core_hours": "core-hours", "storage_tb": "storage", "genomes_per_day": "genomes/day",
          "ingest_tb_per_day": "ingest"}


class PathsError(ValueError):
    """Demand paths cannot be built from these inputs (the message says which and why)."""


@dataclass(frozen=True, slots=True)
class Spread:
    """A multiplicative triangular range (low <= 1 <= high); (1, 1) is no uncertainty."""

    low: float = 1.0
    high: float = 1.0

    def __post_init__(self) -> None:
        if not (0 < self.low <= 1.0 <= self.high):
            raise PathsError(f"a spread needs 0 < low <= 1 <= high, got low={self.low}, high={self.high}")

    def draw(self, n: int, rng: np.random.Generator) -> FloatArray:
        if self.low == self.high == 1.0:
            return np.ones(n)
        return rng.triangular(self.low, 1.0, self.high, size=n)


@dataclass(frozen=True, slots=True)
class PlanSpread:
    """The sequencer plan's uncertainty: fleet size, samples per instrument, core-hours per genome."""

    instruments: Spread = field(default_factory=Spread)
    samples_per_instrument: Spread = field(default_factory=Spread)
    core_hours_per_genome: Spread = field(default_factory=Spread)

    @classmethod
    def from_dict(cls, raw: dict[str, object] | None) -> PlanSpread:
        """From a plan's ``uncertainty:`` block, e.g. ``{instruments: [0.8, 1.2]}`` (low, high)."""
        if not raw:
            return cls()
        known = {"instruments", "samples_per_instrument", "core_hours_per_genome"}
        unknown = sorted(set(raw) - known)
        if unknown:
            raise PathsError(f"uncertainty: unknown key {unknown[0]!r}; use {', '.join(sorted(known))}")
        spreads: dict[str, Spread] = {}
        for key, value in raw.items():
            if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
                raise PathsError(f"uncertainty.{key}: give [low, high] multipliers, e.g. [0.8, 1.2]")
            try:
                spreads[key] = Spread(float(value[0]), float(value[1]))
            except (TypeError, ValueError) as exc:
                raise PathsError(f"uncertainty.{key}: {exc}") from exc
        return cls(**spreads)

    def to_dict(self) -> dict[str, list[float]]:
        return {k: [getattr(self, k).low, getattr(self, k).high]
                for k in ("instruments", "samples_per_instrument", "core_hours_per_genome")}


@dataclass(frozen=True, slots=True)
class PlanYear:
    """One year of the sequencer plan's central figures (forecasts.demand.sequencing.YearFigures)."""

    year: int
    core_hours: float  # reference core
    storage_tb: float  # held at year end
    genomes_per_day: float
    ingest_tb_per_day: float


@dataclass(slots=True)
class DemandPaths:
    """Joint yearly demand: each quantity an (n_paths, len(years)) array, row i one trajectory."""

    years: list[int]
    core_hours: FloatArray
    storage_tb: FloatArray
    genomes_per_day: FloatArray
    ingest_tb_per_day: FloatArray
    partial_years: list[int] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    @property
    def n_paths(self) -> int:
        return int(self.core_hours.shape[0])

    def quantity(self, name: str) -> FloatArray:
        if name not in QUANTITIES:
            raise PathsError(f"unknown demand quantity {name!r}; use {', '.join(QUANTITIES)}")
        out: FloatArray = getattr(self, name)
        return out

    def year_index(self, year: int) -> int:
        try:
            return self.years.index(year)
        except ValueError:
            raise PathsError(f"no demand paths for {year} (paths cover {self.years[0]}-{self.years[-1]})"
                             if self.years else f"no demand paths for {year}") from None

    def quantiles(self, qs: Sequence[float] = (0.1, 0.5, 0.9)) -> dict[str, dict[int, list[float]]]:
        """Per quantity and year, the quantiles across paths (for fans and tables, never for sums)."""
        return {name: {y: [float(v) for v in np.quantile(self.quantity(name)[:, j], qs)]
                       for j, y in enumerate(self.years)} for name in QUANTITIES}

    def to_dict(self, *, max_paths: int = 200) -> dict[str, object]:
        """A JSON-able summary: years, quantiles and the first ``max_paths`` paths (enough to draw)."""
        return {
            "years": self.years, "n_paths": self.n_paths, "partial_years": self.partial_years,
            "sources": self.sources,
            "quantiles": {k: {str(y): v for y, v in d.items()} for k, d in self.quantiles().items()},
            "paths": {k: self.quantity(k)[:max_paths].round(6).tolist() for k in QUANTITIES},
        }


def yearly_totals(months: Sequence[date], monthly: FloatArray) -> tuple[list[int], FloatArray, list[int]]:
    """Sum (n, H) monthly paths per calendar year; years with fewer than 12 months are partial.

    Returns (whole years, (n, whole years) totals, partial years).
    """
    monthly = np.atleast_2d(np.asarray(monthly, dtype=float))
    if monthly.shape[1] != len(months):
        raise PathsError(f"{monthly.shape[1]} monthly values for {len(months)} months")
    by_year: dict[int, list[int]] = {}
    for i, m in enumerate(months):
        by_year.setdefault(m.year, []).append(i)
    whole = sorted(y for y, idx in by_year.items() if len({months[i].month for i in idx}) == 12)
    partial = sorted(set(by_year) - set(whole))
    totals = np.stack([monthly[:, by_year[y]].sum(axis=1) for y in whole], axis=1) if whole \
        else np.zeros((monthly.shape[0], 0))
    return whole, totals, partial


def year_end_levels(months: Sequence[date], monthly: FloatArray) -> tuple[list[int], FloatArray]:
    """The December value of (n, H) monthly level paths (e.g. TB held), per year that has one."""
    monthly = np.atleast_2d(np.asarray(monthly, dtype=float))
    idx = {m.year: i for i, m in enumerate(months) if m.month == 12}
    years = sorted(idx)
    levels = np.stack([monthly[:, idx[y]] for y in years], axis=1) if years else np.zeros((monthly.shape[0], 0))
    return years, levels


def plan_paths(plan: Sequence[PlanYear], spread: PlanSpread, n_paths: int,
               rng: np.random.Generator) -> dict[str, FloatArray]:
    """The plan's figures per path: one multiplier draw per path, held over the years."""
    if n_paths < 1:
        raise PathsError("n_paths must be at least 1")
    fleet = spread.instruments.draw(n_paths, rng)
    samples = spread.samples_per_instrument.draw(n_paths, rng)
    hours = spread.core_hours_per_genome.draw(n_paths, rng)
    out = fleet * samples
    base = {q: np.array([getattr(p, q) for p in plan], dtype=float) for q in QUANTITIES}
    return {
        "core_hours": (out * hours)[:, None] * base["core_hours"][None, :],
        "storage_tb": out[:, None] * base["storage_tb"][None, :],
        "genomes_per_day": out[:, None] * base["genomes_per_day"][None, :],
        "ingest_tb_per_day": out[:, None] * base["ingest_tb_per_day"][None, :],
    }


def combine(
    *, years: Sequence[int], n_paths: int, seed: int = 0,
    trend_core_hours: tuple[list[int], FloatArray] | None = None,
    trend_storage_tb: tuple[list[int], FloatArray] | None = None,
    plan: Sequence[PlanYear] = (), spread: PlanSpread | None = None,
    partial_years: Sequence[int] = (),
    core_label: str = "core-hours forecast", storage_label: str = "storage forecast",
) -> DemandPaths:
    """Joint paths for ``years``: trend paths (resampled to ``n_paths``) plus plan paths, row by row.
    ``core_label`` / ``storage_label``: how ``sources`` names each trend (a projection at an entered growth rate
    is one path, not a forecast's fan).

    A trend given for some years only contributes nothing in the others (the page says which
    sources cover which years through ``sources``); a year no source covers is an error, so a
    design is never judged against demand silently taken as zero.
    """
    years = list(years)
    if not years:
        raise PathsError("no years to build demand paths for")
    rng = np.random.default_rng(seed)
    out = {q: np.zeros((n_paths, len(years))) for q in QUANTITIES}
    covered: set[int] = set()
    sources: list[str] = []

    def add_trend(name: str, trend: tuple[list[int], FloatArray], label: str) -> None:
        t_years, t_paths = trend
        t_paths = np.atleast_2d(t_paths)
        if t_paths.shape[0] == 0:
            raise PathsError(f"{label}: no sample paths")
        # Resample whole rows (trajectories) so the correlation between years is kept.
        rows = rng.choice(t_paths.shape[0], size=n_paths, replace=t_paths.shape[0] < n_paths) \
            if t_paths.shape[0] != n_paths else np.arange(n_paths)
        for j, y in enumerate(years):
            if y in t_years:
                out[name][:, j] += t_paths[rows, t_years.index(y)]
                covered.add(y)
        sources.append(f"{label}: {', '.join(str(y) for y in years if y in t_years) or 'no year in range'}")

    if trend_core_hours is not None:
        add_trend("core_hours", trend_core_hours, core_label)
    if trend_storage_tb is not None:
        add_trend("storage_tb", trend_storage_tb, storage_label)
    if plan:
        by_year = {p.year: p for p in plan}
        cols = [j for j, y in enumerate(years) if y in by_year]
        drawn = plan_paths([by_year[years[j]] for j in cols], spread or PlanSpread(), n_paths, rng)
        for q in QUANTITIES:
            out[q][:, cols] += drawn[q]
        covered.update(years[j] for j in cols)
        sources.append(f"sequencer plan: {', '.join(str(years[j]) for j in cols) or 'no year in range'}")
    missing = [y for y in years if y not in covered]
    if missing:
        raise PathsError(
            f"no demand for {', '.join(map(str, missing))}: the forecast and the plan end before "
            f"(or are partial in) these years; shorten the design or extend the forecast horizon")
    return DemandPaths(years=years, core_hours=out["core_hours"], storage_tb=out["storage_tb"],
                       genomes_per_day=out["genomes_per_day"], ingest_tb_per_day=out["ingest_tb_per_day"],
                       partial_years=sorted(set(partial_years)), sources=sources)


def around_figures(
    *, years: Sequence[int], figures: dict[str, Sequence[float]], sigma_per_year: dict[str, float],
    n_paths: int, seed: int = 0, plan_spread: PlanSpread | None = None,
) -> DemandPaths:
    """Paths around a design's typed-in yearly figures when no forecast is linked (scenario files).

    Each quantity follows its figures times a lognormal random walk: the log multiplier takes one
    N(0, sigma^2) step per year from the first year on, so uncertainty widens with the horizon and
    a path that is high one year stays high (the walk is per path). Genomes/day and ingest take one
    draw per path from ``plan_spread`` (fleet x samples), as a sequencer plan's spread does (its
    per-genome hours act on the plan's own core-hours, which typed-in figures do not separate, so
    they are not drawn here). The median path is the figures themselves.
    """
    years = list(years)
    rng = np.random.default_rng(seed)
    out: dict[str, FloatArray] = {}
    for q in QUANTITIES:
        base = np.asarray(figures.get(q, [0.0] * len(years)), dtype=float)
        if base.shape != (len(years),):
            raise PathsError(f"{q}: {base.size} figures for {len(years)} years")
        sigma = float(sigma_per_year.get(q, 0.0))
        if sigma < 0:
            raise PathsError(f"{q}: a negative spread ({sigma}) is not a spread")
        walk = np.cumsum(rng.normal(0.0, sigma, size=(n_paths, len(years))), axis=1) if sigma else 0.0
        out[q] = base[None, :] * np.exp(walk) * np.ones((n_paths, 1))
    if plan_spread is not None:
        fleet = plan_spread.instruments.draw(n_paths, rng) * plan_spread.samples_per_instrument.draw(n_paths, rng)
        out["genomes_per_day"] = out["genomes_per_day"] * fleet[:, None]
        out["ingest_tb_per_day"] = out["ingest_tb_per_day"] * fleet[:, None]
    return DemandPaths(years=years, core_hours=out["core_hours"], storage_tb=out["storage_tb"],
                       genomes_per_day=out["genomes_per_day"], ingest_tb_per_day=out["ingest_tb_per_day"],
                       sources=["typed-in yearly figures with a lognormal random walk per path, sigma per year "
                                + ", ".join(f"{LABELS.get(q, q)} {float(s):.2f}"
                                            for q, s in sorted(sigma_per_year.items()))])
