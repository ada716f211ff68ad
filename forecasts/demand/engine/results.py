"""Result dataclasses of the engine; ``to_dict()`` gives plain JSON (NaN and infinities -> None)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any


def clean(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


class ShortHistoryError(ValueError):
    """Too few periods for a backtested forecast; says how many exist and how many are needed. The remedy
    depends on where the series is forecast: ``message(growth_rate=True)`` where a growth rate can be entered
    instead (a series page), the plain message where it cannot (a panel)."""

    def __init__(self, periods: int, needed: int, unit: str = "periods") -> None:
        self.periods, self.needed, self.unit = periods, needed, unit
        super().__init__(self.message(growth_rate=False))

    def message(self, *, growth_rate: bool) -> str:
        unit = self.unit[:-1] if self.periods == 1 and self.unit.endswith("s") else self.unit
        more = self.needed - self.periods
        head = (f"{self.periods} {unit} of history; at least {self.needed} are needed for a backtested forecast "
                f"with calibrated intervals. Wait for {more} more")
        return head + (", or enter a growth rate for a projection." if growth_rate else ".")


@dataclass
class Step:
    """One future period, original units: the combined (or pinned) median and its calibrated
    80% (p10-p90) and 95% (p2.5-p97.5) intervals."""

    index: int  # 0-based step past the last observation
    median: float
    p10: float
    p90: float
    p2_5: float
    p97_5: float


@dataclass
class MemberResult:
    """One member: backtest scores, rank and weight in the combination, and its own forecast
    with intervals calibrated on its own backtest errors (original units)."""

    name: str
    mase: float  # working scale, over the backtest
    smape: float  # original scale, percent
    cells: int  # backtest forecasts scored
    rank: int  # 1 = best by backtest MASE
    weight: float  # share in the combination (1/k for each of the k combined, 0 otherwise)
    log: bool | None = None  # fitted on the log scale (other-scale members differ from the series')
    coverage80: float = math.nan  # backtest errors inside its own calibrated 80% interval
    median: list[float] = field(default_factory=list)
    p10: list[float] = field(default_factory=list)
    p90: list[float] = field(default_factory=list)
    p2_5: list[float] = field(default_factory=list)
    p97_5: list[float] = field(default_factory=list)
    note: str = ""


@dataclass
class EngineForecast:
    """A series' forecast: the combination (or the pinned member), how it was made, and every
    member with its backtest errors and weight."""

    horizon: int
    n_obs: int
    season_length: int
    log: bool
    log_reason: str
    method: str  # e.g. "median of the best 3 of 6 members by backtest MASE" or "pinned: ets"
    selected: list[str]
    pinned: str | None
    backtest_origins: int
    backtest_horizon: int
    backtest_mase: float  # of the combined (or pinned) forecast
    backtest_smape: float
    backtest_coverage80: float  # backtest errors inside the calibrated 80% interval (near 0.8 by design)
    interval_steps: int  # steps calibrated on their own errors; later ones widen as sqrt(step)
    interval_scores: int  # backtest errors the intervals are calibrated on
    steps: list[Step]
    members: list[MemberResult]
    gaps_filled: int = 0
    seconds: float = 0.0
    paths: list[list[float]] | None = None  # n_paths x horizon, original units, when asked

    def column(self, key: str) -> list[float]:
        return [float(getattr(s, key)) for s in self.steps]

    def to_dict(self) -> dict[str, Any]:
        return clean(asdict(self))  # type: ignore[no-any-return]
