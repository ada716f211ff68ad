"""The chance a design is enough: capacity per year against joint demand paths (pure core).

A design's capacity in a year does not depend on demand (it is what was bought), so judging it on
1,000 demand paths is one evaluation plus a vectorised comparison. For each year and constraint:

- ``probability``: the share of paths in which capacity meets demand (available >= required);
- ``expected_shortfall``: the mean of (required - available) over the paths that fall short
  (0 when none do): how much is missing when it is missing, in the constraint's unit;
- per year, ``all_constraints``: the share of paths in which every constraint holds at once
  (computed path by path, so it is never the product of the per-constraint probabilities).

These are direct counts over the given paths: with n paths a probability is a multiple of 1/n,
and its sampling error is about sqrt(p (1 - p) / n) (1.0 point at 90% and n = 1,000).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

# constraint -> (demand quantity in DemandPaths, multiplier of that quantity, unit)
# flash_tb's multiplier is the design's flash_days (days of ingest to hold), given at call time.
CONSTRAINTS: dict[str, tuple[str, str]] = {
    "core_hours": ("core_hours", "core-hours"),
    "storage_tb": ("storage_tb", "TB"),
    "genomes_per_day": ("genomes_per_day", "genomes/day"),
    "flash_tb": ("ingest_tb_per_day", "TB"),
}


@dataclass(slots=True)
class ConstraintChance:
    constraint: str
    year: int
    unit: str
    available: float
    probability: float
    expected_shortfall: float  # mean shortfall over the paths that fall short; 0 when none
    required_p50: float
    required_p90: float


@dataclass(slots=True)
class YearChance:
    year: int
    all_constraints: float  # share of paths where every constraint holds in this year
    constraints: list[ConstraintChance] = field(default_factory=list)


@dataclass(slots=True)
class ChanceReport:
    n_paths: int
    years: list[YearChance]
    every_year: float  # share of paths where every constraint holds in every year
    note: str = ""

    def year(self, year: int) -> YearChance:
        return next(y for y in self.years if y.year == year)

    def probability(self, constraint: str, year: int) -> float:
        return next(c.probability for c in self.year(year).constraints if c.constraint == constraint)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def required_paths(demand: Any, constraint: str, *, flash_days: float = 7.0) -> FloatArray:
    """The (n, years) requirement of a constraint from DemandPaths (flash: days of ingest)."""
    quantity, _ = CONSTRAINTS[constraint]
    req: FloatArray = np.asarray(demand.quantity(quantity), dtype=float)
    return req * flash_days if constraint == "flash_tb" else req


def chances(
    *, years: list[int], available: Mapping[str, Mapping[int, float]], demand: Any,
    flash_days: float = 7.0, constraints: list[str] | None = None,
) -> ChanceReport:
    """Per year and constraint, the probability capacity meets demand on ``demand``'s paths.

    ``available[constraint][year]`` is the capacity the design evaluation reports that year (e.g.
    normalised core-hours at the utilisation target, plannable TB, genomes/day, flash TB). A
    constraint whose demand is zero on every path in every year is not judged (it is switched off).
    """
    names = constraints or [c for c in CONSTRAINTS if c in available]
    n = int(demand.n_paths)
    ok_all = np.ones((n, len(years)), dtype=bool)
    out: list[YearChance] = []
    per_year: dict[int, list[ConstraintChance]] = {y: [] for y in years}
    judged = []
    for name in names:
        req_all = required_paths(demand, name, flash_days=flash_days)
        cols = [demand.year_index(y) for y in years]
        req = req_all[:, cols]
        if not np.any(req > 0):
            continue
        judged.append(name)
        cap = np.array([float(available[name][y]) for y in years])
        ok = req <= cap[None, :] * (1 + 1e-12)
        ok_all &= ok
        short = np.where(ok, 0.0, req - cap[None, :])
        for j, y in enumerate(years):
            n_short = int((~ok[:, j]).sum())
            per_year[y].append(ConstraintChance(
                constraint=name, year=y, unit=CONSTRAINTS[name][1], available=float(cap[j]),
                probability=float(ok[:, j].mean()),
                expected_shortfall=float(short[:, j].sum() / n_short) if n_short else 0.0,
                required_p50=float(np.quantile(req[:, j], 0.5)), required_p90=float(np.quantile(req[:, j], 0.9)),
            ))
    for j, y in enumerate(years):
        out.append(YearChance(year=y, all_constraints=float(ok_all[:, j].mean()), constraints=per_year[y]))
    return ChanceReport(
        n_paths=n, years=out, every_year=float(ok_all.all(axis=1).mean()),
        note=(f"direct counts over {n:,} joint demand paths; constraints judged: {', '.join(judged) or 'none'}; "
              f"sampling error about {100 * np.sqrt(0.09 / max(n, 1)):.1f} points at 90%"),
    )


def available_from_evaluation(evaluation: Any) -> dict[str, dict[int, float]]:
    """Capacity per constraint and year from a capacity.DesignEvaluation (or its to_dict())."""
    years = evaluation["years"] if isinstance(evaluation, dict) else [asdict(y) for y in evaluation.years]
    return {
        "core_hours": {y["year"]: y["normalised_core_hours_at_target"] for y in years},
        "storage_tb": {y["year"]: y["plannable_tb"] for y in years},
        "genomes_per_day": {y["year"]: y["genomes_per_day_capacity"] for y in years},
        "flash_tb": {y["year"]: y["flash_tb"] for y in years},
    }
