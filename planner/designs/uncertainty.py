"""A scenario's demand uncertainty: where its joint demand paths come from (pure core).

The ``uncertainty:`` block of a scenario (docs/scenario-format.md) says how to draw demand paths:

    uncertainty:
      paths: 1000            # paths to judge the design on (and to buy a service level on)
      seed: 0                # the draw is reproducible: same seed, same paths
      sigma_per_year:        # typed-in figures x a lognormal random walk per path (no forecast linked)
        core_hours: 0.15
        storage_tb: 0.10
      plan: {instruments: [0.8, 1.2], samples_per_instrument: [0.9, 1.1], core_hours_per_genome: [0.9, 1.2]}
      forecast: {core_fit: 12, storage_fit: 13, sequencer_plan: 4, cluster_clock_ghz: 2.3}  # stored forecasts

With ``forecast`` the paths come from the linked fits' calibrated sample paths and the plan's
spread (the Django layer resolves the ids through ``resolver``); otherwise around the design's
typed-in yearly figures. Out-of-sample checks use an independent draw (``seed + 1``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from forecasts.demand.paths import QUANTITIES, DemandPaths, PathsError, PlanSpread, around_figures

MAX_PATHS = 20_000
DEFAULT_PATHS = 1000
# An out-of-sample check counts on at least this many independent paths: its own sampling error is then
# about 0.3 points at 90 %, small next to the 2-point tolerance it is judged by (on 1,000 paths it is
# 0.95 points a year, and the worst of five years reads about a point low even for an exact plan).
CHECK_PATHS = 10_000


def check_paths(n_in: int) -> int:
    """How many independent paths judge a plan bought on ``n_in`` paths."""
    return max(int(n_in), CHECK_PATHS)
_KEYS = {"paths", "seed", "sigma_per_year", "plan", "forecast", "note"}
_FORECAST_KEYS = {"core_fit", "storage_fit", "sequencer_plan", "cluster_clock_ghz"}

# resolver(spec, years, n_paths, seed) -> DemandPaths, for the ``forecast`` source
PathsResolver = Callable[["Uncertainty", list[int], int, int], DemandPaths]


@dataclass(slots=True)
class Uncertainty:
    paths: int = DEFAULT_PATHS
    seed: int = 0
    sigma_per_year: dict[str, float] = field(default_factory=dict)
    plan: PlanSpread = field(default_factory=PlanSpread)
    forecast: dict[str, int] = field(default_factory=dict)
    cluster_clock_ghz: float | None = None  # the forecast's cores, converted linearly to the reference core

    def to_dict(self) -> dict[str, Any]:
        return {"paths": self.paths, "seed": self.seed, "sigma_per_year": dict(self.sigma_per_year),
                "plan": self.plan.to_dict(), "forecast": dict(self.forecast),
                "cluster_clock_ghz": self.cluster_clock_ghz}


def parse_uncertainty(raw: Any, errors: list[str]) -> Uncertainty | None:
    """Validate an ``uncertainty:`` mapping; problems are appended to ``errors`` with their field path."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        errors.append("uncertainty: expected a mapping")
        return None
    for key in sorted(set(raw) - _KEYS):
        errors.append(f"uncertainty.{key}: unknown key (known: {', '.join(sorted(_KEYS))})")
    out = Uncertainty()
    n = raw.get("paths", DEFAULT_PATHS)
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_PATHS:
        errors.append(f"uncertainty.paths: a whole number from 1 to {MAX_PATHS:,}, got {n!r}")
    else:
        out.paths = n
    seed = raw.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        errors.append(f"uncertainty.seed: a whole number >= 0, got {seed!r}")
    else:
        out.seed = seed
    sig = raw.get("sigma_per_year") or {}
    if not isinstance(sig, dict):
        errors.append("uncertainty.sigma_per_year: expected a mapping of quantity -> spread per year")
        sig = {}
    for key, value in sig.items():
        if key not in QUANTITIES:
            errors.append(f"uncertainty.sigma_per_year.{key}: unknown quantity (known: {', '.join(QUANTITIES)})")
        elif isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 2:
            errors.append(f"uncertainty.sigma_per_year.{key}: a log-scale spread from 0 to 2, got {value!r}")
        else:
            out.sigma_per_year[key] = float(value)
    try:
        out.plan = PlanSpread.from_dict(raw.get("plan"))
    except PathsError as exc:
        # PlanSpread names its keys under "uncertainty." (its own block); here they sit under uncertainty.plan, the
        # path the line finder looks up (was "uncertainty.plan: uncertainty.samples_per_instrument: ...", no line)
        msg = str(exc).removeprefix("uncertainty: ")
        errors.append(f"uncertainty.plan.{msg.removeprefix('uncertainty.')}" if msg.startswith("uncertainty.")
                      else f"uncertainty.plan: {msg}")
    fc = raw.get("forecast") or {}
    if not isinstance(fc, dict):
        errors.append("uncertainty.forecast: expected {core_fit, storage_fit, sequencer_plan}")
        fc = {}
    for key, value in fc.items():
        if key == "cluster_clock_ghz":
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                errors.append(f"uncertainty.forecast.cluster_clock_ghz: a clock in GHz > 0, got {value!r}")
            else:
                out.cluster_clock_ghz = float(value)
        elif key not in _FORECAST_KEYS:
            errors.append(f"uncertainty.forecast.{key}: unknown key (known: {', '.join(sorted(_FORECAST_KEYS))})")
        elif isinstance(value, bool) or not isinstance(value, int) or value < 1:
            errors.append(f"uncertainty.forecast.{key}: an id (a whole number >= 1), got {value!r}")
        else:
            out.forecast[key] = value
    return out


def demand_paths(design: Any, spec: Uncertainty, *, n_paths: int | None = None, seed_offset: int = 0,
                 resolver: PathsResolver | None = None) -> DemandPaths:
    """The design's joint demand paths under ``spec``.

    ``seed_offset`` >= 1 draws an independent check set, of at least CHECK_PATHS paths.
    """
    n = n_paths or spec.paths
    if seed_offset:
        n = check_paths(n)
    seed = spec.seed + seed_offset
    years = list(design.years)
    if spec.forecast:
        if resolver is None:
            raise PathsError("uncertainty.forecast names stored forecasts: evaluate this design in the product "
                             "(or through manage.py with the database), where those fits can be read")
        return resolver(spec, years, n, seed)
    figures = {q: [float(getattr(design.demand[y], q)) if y in design.demand else 0.0 for y in years]
               for q in QUANTITIES}
    plan = spec.plan if spec.plan != PlanSpread() else None
    return around_figures(years=years, figures=figures, sigma_per_year=spec.sigma_per_year, n_paths=n,
                          seed=seed, plan_spread=plan)
