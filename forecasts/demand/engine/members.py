"""The members of the combination: statistical models from statsforecast, and an adapter for the
growth curves (logistic, Gompertz, piecewise) where a saturation level or a capacity is known.

Every member forecasts on the series' working scale (``scale.py``): ``forecast(z, h)`` takes the
working-scale history and returns ``h`` working-scale point forecasts (NaN when it cannot fit).
``for_backtest()`` gives the member used at the backtest origins.  To keep a whole panel within
its time budget the two automatic searches are not repeated at every origin: AutoETS keeps the
error/trend/season form it chose on the whole series and re-estimates its parameters at each
origin; AutoARIMA keeps its orders and coefficients from the whole series and is filtered on each
origin's history (statsforecast ``forward``).  Both choices see the whole series, which makes
those members' backtest errors somewhat optimistic (docs/forecasting.md says so); Theta,
DOTM and the random walk are refitted from scratch at every origin.

Members (names used in results and for pinning):

- ``ets``: AutoETS, error/trend/season chosen by AICc (damped trends among the candidates);
- ``ets_damped``: AutoETS restricted to damped trends;
- ``theta``: the standard Theta method (Assimakopoulos & Nikolopoulos 2000);
- ``dotm``: the dynamic optimised Theta method (Fiorucci et al. 2016);
- ``ces``: AutoCES, complex exponential smoothing (Svetunkov & Kourentzes), its seasonal form
  (none, simple, partial, full) chosen by AICc on the whole series and kept at the backtest
  origins, where its parameters are re-estimated (as AutoETS); not in the defaults (see
  ``OPTIONAL_MEMBERS``);
- ``arima``: AutoARIMA (Hyndman-Khandakar stepwise search, maximum likelihood, p, q <= 2 and
  seasonal P, Q <= 1: short series support no more);
- ``rwd``: random walk with drift;
- ``rwdm``: random walk with a robust drift, the median of the history's first differences
  (``rwd``'s drift is their mean, (z_n - z_1) / (n - 1), which rests on the two end points
  alone); not in the defaults (see ``OPTIONAL_MEMBERS``).

On the log scale every component is additive (a multiplicative model of log values is not
meaningful); seasonal decompositions of Theta are additive there too.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .scale import FloatArray, Scale

STAT_MEMBERS = ("ets", "ets_damped", "theta", "dotm", "arima", "rwd")
# Members that run only when asked for by name (``members=`` / ``--members``): AutoCES and the
# median-drift random walk did not pass the validation bars for the default combination
# (docs/forecasting.md).
OPTIONAL_MEMBERS = ("ces", "rwdm")
ALL_MEMBERS = (*STAT_MEMBERS, *OPTIONAL_MEMBERS)


class Member(Protocol):
    name: str

    def forecast(self, z: FloatArray, h: int, scale: Scale) -> FloatArray: ...

    def for_backtest(self) -> Member: ...


def _nan(h: int) -> FloatArray:
    return np.full(h, np.nan)


def _period(season_length: int, n: int) -> int:
    """The season length a member fits with: 1 (no seasonality) below two seasons and two points."""
    return season_length if n >= 2 * season_length + 2 else 1


def _call(model: Any, z: FloatArray, h: int) -> FloatArray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = np.asarray(model.forecast(y=z, h=h)["mean"], dtype=float)
        except Exception:  # noqa: BLE001 - a member that cannot fit this window is left out of it
            return _nan(h)
    return out if out.shape == (h,) and np.all(np.isfinite(out)) else _nan(h)


@dataclass
class StatsMember:
    """A statsforecast model made fresh for every fit by ``make(season_length)``."""

    name: str
    make: Callable[[int], Any]
    season_length: int = 1
    min_obs: int = 4

    def forecast(self, z: FloatArray, h: int, scale: Scale) -> FloatArray:
        if z.size < self.min_obs:
            return _nan(h)
        m = _period(self.season_length, z.size)
        return _call(self.make(m), z, h)

    def for_backtest(self) -> StatsMember:
        return self


@dataclass
class EtsMember:
    """AutoETS on the whole series; at backtest origins its chosen form is re-estimated."""

    name: str
    log: bool
    damped: bool
    season_length: int = 1
    min_obs: int = 4
    form: tuple[str, bool] | None = None  # ("AAN", damped) once chosen

    def _model(self, m: int) -> Any:
        from statsforecast.models import AutoETS

        if self.form is not None:
            code, damped = self.form
            if m == 1 and code[2] != "N":
                code = code[:2] + "N"
            return AutoETS(season_length=m, model=code, damped=damped)
        code = ("AZZ" if self.log else "ZZZ") if m > 1 else ("AZN" if self.log else "ZZN")
        return AutoETS(season_length=m, model=code, damped=True if self.damped else None)

    def forecast(self, z: FloatArray, h: int, scale: Scale) -> FloatArray:
        if z.size < self.min_obs:
            return _nan(h)
        m = _period(self.season_length, z.size)
        if self.form is not None:
            return _call(self._model(m), z, h)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                model = self._model(m).fit(z)
                out = np.asarray(model.predict(h=h)["mean"], dtype=float)
                parts = str(model.model_["method"])[4:-1].split(",")  # "ETS(A,Ad,N)"
            except Exception:  # noqa: BLE001
                return _nan(h)
        if len(parts) == 3:
            self.form = (parts[0] + parts[1][0] + parts[2], parts[1].endswith("d"))
        return out if out.shape == (h,) and np.all(np.isfinite(out)) else _nan(h)

    def for_backtest(self) -> EtsMember:
        return EtsMember(self.name, self.log, self.damped, self.season_length, self.min_obs, self.form)


@dataclass
class CesMember:
    """AutoCES on the whole series; at backtest origins its chosen seasonal form is re-estimated."""

    name: str = "ces"
    season_length: int = 1
    min_obs: int = 4
    form: str | None = None  # "N", "S", "P" or "F" once chosen

    def forecast(self, z: FloatArray, h: int, scale: Scale) -> FloatArray:
        from statsforecast.models import AutoCES

        if z.size < self.min_obs:
            return _nan(h)
        m = _period(self.season_length, z.size)
        if self.form is not None:
            return _call(AutoCES(season_length=m, model=self.form if m > 1 else "N"), z, h)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                model = AutoCES(season_length=m).fit(z)
                out = np.asarray(model.predict(h=h)["mean"], dtype=float)
                fitted = getattr(model, "model_", None)  # a constant series gets statsforecast's Naive
                form = str(fitted.get("seasontype", "N")) if isinstance(fitted, dict) else "N"
            except Exception:  # noqa: BLE001
                return _nan(h)
        self.form = form
        return out if out.shape == (h,) and np.all(np.isfinite(out)) else _nan(h)

    def for_backtest(self) -> CesMember:
        return CesMember(self.name, self.season_length, self.min_obs, self.form)


@dataclass
class ArimaMember:
    """AutoARIMA on the whole series; at backtest origins its chosen orders are refitted."""

    name: str = "arima"
    season_length: int = 1
    min_obs: int = 5
    fitted: Any = None

    def forecast(self, z: FloatArray, h: int, scale: Scale) -> FloatArray:
        from statsforecast.models import AutoARIMA

        if z.size < self.min_obs:
            return _nan(h)
        if self.fitted is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    out = np.asarray(self.fitted.forward(y=z, h=h)["mean"], dtype=float)
                except Exception:  # noqa: BLE001
                    return _nan(h)
            return out if out.shape == (h,) and np.all(np.isfinite(out)) else _nan(h)
        m = _period(self.season_length, z.size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                model = AutoARIMA(season_length=m, method="ML", max_p=2, max_q=2, max_P=1, max_Q=1).fit(z)
                out = np.asarray(model.predict(h=h)["mean"], dtype=float)
            except Exception:  # noqa: BLE001
                return _nan(h)
        self.fitted = model
        return out if np.all(np.isfinite(out)) else _nan(h)

    def for_backtest(self) -> ArimaMember:
        return self  # filtered with the whole-series model (``forward``) once fitted


@dataclass
class MedianDriftMember:
    """A random walk whose drift is the median of the history's first differences (a robust drift:
    one jump or crash in the history moves it by at most one difference's rank, where it moves the
    mean drift by its whole size divided by n - 1).  Seasons are ignored, as ``rwd`` ignores them."""

    name: str = "rwdm"
    min_obs: int = 2

    def forecast(self, z: FloatArray, h: int, scale: Scale) -> FloatArray:
        if z.size < self.min_obs or not np.all(np.isfinite(z)):
            return _nan(h)
        drift = float(np.median(np.diff(z)))
        return z[-1] + drift * np.arange(1, h + 1)

    def for_backtest(self) -> MedianDriftMember:
        return self


@dataclass
class ScaledMember:
    """A member fitted on ``inner_scale`` (the scale the log rule did not choose) whose forecasts
    are returned on the series' working scale, so it is scored, trimmed and combined like the
    others (``core.py``: the scale ensemble).  A window it cannot represent (a value <= 0 to be
    logged, a forecast <= 0 on a log working scale) gives NaN."""

    name: str
    inner: Member
    inner_scale: Scale

    def forecast(self, z: FloatArray, h: int, scale: Scale) -> FloatArray:
        with np.errstate(all="ignore"):
            zi = self.inner_scale.forward(scale.back(z))
            if not np.all(np.isfinite(zi)):
                return _nan(h)
            out = scale.forward(self.inner_scale.back(self.inner.forecast(zi, h, self.inner_scale)))
        return out if out.shape == (h,) and np.all(np.isfinite(out)) else _nan(h)

    def for_backtest(self) -> ScaledMember:
        return ScaledMember(self.name, self.inner.for_backtest(), self.inner_scale)


def other_scale_members(season_length: int, scale: Scale, names: tuple[str, ...]) -> list[Member]:
    """The members ``names`` fitted on the other scale than ``scale`` (a positive series only),
    named ``<name>_log`` (other scale: logs) or ``<name>_orig`` (other scale: the original values)."""
    other = Scale(not scale.log)
    suffix = "_log" if other.log else "_orig"
    return [ScaledMember(m.name + suffix, m, other) for m in default_members(season_length, other, True, names)]


@dataclass
class CurveMember:
    """A growth curve (or any model) given as ``fn(y, h) -> h forecasts``, both on the series'
    original scale; e.g. a logistic with the cluster's capacity as its saturation level.  Plug it
    in with ``forecast(..., extra_members=[CurveMember('logistic', fn)])``."""

    name: str
    fn: Callable[[FloatArray, int], FloatArray]
    min_obs: int = 5

    def forecast(self, z: FloatArray, h: int, scale: Scale) -> FloatArray:
        if z.size < self.min_obs:
            return _nan(h)
        try:
            y = np.asarray(self.fn(scale.back(z), h), dtype=float)
        except (ValueError, ArithmeticError, np.linalg.LinAlgError):
            return _nan(h)
        if y.shape != (h,):
            return _nan(h)
        out = scale.forward(y)
        return out if np.all(np.isfinite(out)) else _nan(h)

    def for_backtest(self) -> CurveMember:
        return self


def _theta(cls_name: str, additive: bool) -> Callable[[int], Any]:
    import statsforecast.models as sm

    cls = getattr(sm, cls_name)

    def make(m: int) -> Any:
        return cls(season_length=m, decomposition_type="additive" if additive else "multiplicative")

    return make


def _rwd(m: int) -> Any:
    from statsforecast.models import RandomWalkWithDrift

    return RandomWalkWithDrift()


def default_members(season_length: int, scale: Scale, positive: bool, names: tuple[str, ...] = STAT_MEMBERS
                    ) -> list[Member]:
    """The statistical members, configured for the working scale (additive on the log scale,
    additive Theta decomposition when some value is not positive)."""
    additive = scale.log or not positive
    makers: dict[str, Callable[[], Member]] = {
        "ets": lambda: EtsMember("ets", scale.log, False, season_length),
        "ets_damped": lambda: EtsMember("ets_damped", scale.log, True, season_length, min_obs=5),
        "theta": lambda: StatsMember("theta", _theta("Theta", additive), season_length, min_obs=3),
        "dotm": lambda: StatsMember("dotm", _theta("DynamicOptimizedTheta", additive), season_length, min_obs=3),
        "arima": lambda: ArimaMember("arima", season_length),
        "ces": lambda: CesMember("ces", season_length),
        "rwd": lambda: StatsMember("rwd", _rwd, season_length, min_obs=2),
        "rwdm": lambda: MedianDriftMember("rwdm"),
    }
    unknown = [n for n in names if n not in makers]
    if unknown:
        raise ValueError(f"unknown member {unknown[0]!r}; choose from {', '.join(makers)}")
    return [makers[n]() for n in names]
