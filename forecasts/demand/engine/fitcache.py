"""Identical statsforecast computations made once per series (a speed-up that changes no number).

Within one series' forecast the members ask statsforecast for some of the same computations:

- ETS fits: AutoETS's search over forms (``ets``) fits every damped form that the damped-only
  search (``ets_damped``) then fits again on the same values (found by the bounds the fit reads,
  ``_ets_key``: since 2026-11-28 all of them, before a few), and at the backtest origins both
  refit the same form when ``ets`` chose a damped one;
- ETS's initial states, the same for both error types and with or without damping;
- the classical seasonal decomposition (statsmodels) that ETS takes for the initial states of
  every seasonal form it tries, and that Theta and DOTM both take to deseasonalise;
- Theta's seasonality test (an autocorrelation), the same for ``theta`` and ``dotm``.

Each is a deterministic function of its arguments (the ETS fit is an optimisation from fixed
starting values), so inside ``shared_fits()`` a result already computed from the same arguments
(the same values, bit for bit) is handed back as a copy instead of being computed again, and
Theta's ``norm.ppf(0.95)`` is taken once per process: the same forecasts, bit for bit, for about
a seventh less CPU on the M3 quarterly panel (docs/forecasting.md, "Speed").

The wrappers are installed into statsforecast's modules once, on first use; outside
``shared_fits()`` (and in any other thread or context: a ``ContextVar``) they call straight
through.  If a statsforecast release renames a function, that one is not shared; nothing breaks.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

_FITS: ContextVar[dict[Hashable, Any] | None] = ContextVar("shared_fits", default=None)
_MARK = "_planner_shared_fits"


def _key_part(v: Any) -> Hashable:
    t = type(v)
    if t is np.ndarray:
        return ("array", v.dtype.str, v.shape, v.tobytes())
    if t is float or t is np.float64:
        return ("float", float(v).hex()) if v == v else ("float", "nan")  # -0.0 != 0.0, nan == nan
    if v is None or t in (str, int, bool):
        return (t.__name__, v)
    raise TypeError("not a shareable argument")


def _key(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Hashable:
    # statsforecast calls it the same way for the same fit (ets_f's search and fixed-form paths):
    # a fit asked for the same arguments another way is merely made again
    return (name, tuple(_key_part(v) for v in args), tuple((k, _key_part(v)) for k, v in sorted(kwargs.items())))


Replay = Callable[[], None]
Keyer = Callable[[str, tuple[Any, ...], dict[str, Any]], tuple[Hashable, Replay | None]]


def _ets_key(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Hashable, Replay | None]:
    """The key of an ETS fit (``etsmodel``) as ``ets_f`` asks for it, and how to replay its one
    side effect.  ``initparam`` first narrows the bounds arrays in place (beta's upper bound to the
    starting alpha, gamma's to 1 - alpha), and ``ets_f``'s search passes the same arrays from form
    to form, so the ``ets`` and ``ets_damped`` searches ask for the same damped form with bounds
    that differ in entries the form has no parameter for (gamma's for a non-seasonal one) or that
    ``initparam`` then narrows to the same value.  The fit reads the bounds only as ``initparam``
    leaves them and only for the parameters it has, so those entries are the key; a fit found
    this way leaves the caller's arrays as making it would have (the replay)."""
    import statsforecast.ets as ets

    lower, upper = kwargs.get("lower"), kwargs.get("upper")
    if (len(args) != 10 or type(lower) is not np.ndarray or type(upper) is not np.ndarray
            or lower.shape != (4,) or upper.shape != (4,) or "bounds" not in kwargs):
        return _key(name, args, kwargs), None
    y, m, errortype, trendtype, seasontype, damped, alpha, beta, gamma, phi = args
    lo, up = lower.copy(), upper.copy()
    try:
        par = ets.initparam(alpha, beta, gamma, phi, trendtype, seasontype, damped, lo, up,
                            1 if seasontype == "N" else m, kwargs["bounds"])
    except Exception:  # noqa: BLE001 - the fit raises the same: keyed as it is asked
        return _key(name, args, kwargs), None
    has = [i for i, p in enumerate(("alpha", "beta", "gamma", "phi")) if not np.isnan(par[p])]
    rest = {k: v for k, v in kwargs.items() if k not in ("lower", "upper")}
    key = (_key(name, args, rest), lo[has].tobytes(), up[has].tobytes())

    def replay() -> None:
        lower[...] = lo
        upper[...] = up

    return key, replay


def _sharing(fn: Callable[..., Any], name: str, keyer: Keyer | None = None) -> Callable[..., Any]:
    def shared(*args: Any, **kwargs: Any) -> Any:
        fits = _FITS.get()
        if fits is None:
            return fn(*args, **kwargs)
        try:
            key, replay = (_key(name, args, kwargs), None) if keyer is None else keyer(name, args, kwargs)
        except TypeError:  # an argument we cannot key on (a callback, an rng): fit afresh
            return fn(*args, **kwargs)
        if key not in fits:
            fits[key] = fn(*args, **kwargs)
        elif replay is not None:
            replay()
        fit = fits[key]
        # statsforecast adds keys to the dict an ETS fit comes in ("method", residuals) and only
        # reads the arrays in it and the decomposition's: shallow copies keep them as they were
        if isinstance(fit, dict):
            return dict(fit)
        return fit.copy() if isinstance(fit, np.ndarray) else copy.copy(fit)

    setattr(shared, _MARK, True)
    shared.__wrapped__ = fn  # type: ignore[attr-defined]
    return shared


class _ConstantPpf:
    """scipy's ``norm`` whose ``ppf`` of a plain float is computed once: statsforecast's Theta
    asks for ``norm.ppf(0.95)`` (its seasonality test) at every fit, about 4% of a panel's CPU
    through scipy's generic machinery.  The value handed back is scipy's own."""

    def __init__(self, dist: Any) -> None:
        self._dist = dist
        self._ppf: dict[float, Any] = {}

    def ppf(self, q: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs or type(q) is not float:
            return self._dist.ppf(q, *args, **kwargs)
        if q not in self._ppf:
            self._ppf[q] = self._dist.ppf(q)
        return self._ppf[q]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._dist, name)


# (module, function): the ETS fit; its initial states (the same for both error types and with or
# without damping); the seasonal decomposition that ETS's initial states and Theta's
# deseasonalising (theta and dotm) take of the same values; Theta's seasonality test (an
# autocorrelation, the same for theta and dotm)
_SHARED = (("statsforecast.ets", "etsmodel"), ("statsforecast.ets", "initstate"),
           ("statsforecast.ets", "seasonal_decompose"), ("statsforecast.theta", "seasonal_decompose"),
           ("statsforecast.theta", "acf"))


def _install() -> bool:
    try:
        import statsforecast.theta as theta
    except ImportError:  # pragma: no cover - statsforecast is a dependency
        return False
    norm = getattr(theta, "norm", None)
    if norm is not None and not isinstance(norm, _ConstantPpf) and hasattr(norm, "ppf"):
        theta.norm = _ConstantPpf(norm)
    for module_name, fn_name in _SHARED:
        module = importlib.import_module(module_name)
        fn = getattr(module, fn_name, None)
        if callable(fn) and not getattr(fn, _MARK, False):
            keyer = _ets_key if (module_name, fn_name) == ("statsforecast.ets", "etsmodel") else None
            setattr(module, fn_name, _sharing(fn, f"{getattr(fn, '__module__', '')}.{fn_name}", keyer))
    return True


@contextmanager
def shared_fits() -> Iterator[None]:
    """Share identical computations until the block ends (one series: the store holds its fits)."""
    if _FITS.get() is not None or not _install():
        yield
        return
    token = _FITS.set({})
    try:
        yield
    finally:
        _FITS.reset(token)
