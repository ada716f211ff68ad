"""Speed-ups that must change no number: identical statsforecast fits made once per series
(``fitcache.py``) and the conformal quantiles without numpy's per-call overhead (pure, no Django)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import numpy as np
import pytest

from forecasts.demand.engine import fitcache, forecast
from forecasts.demand.engine.intervals import _weibull_quantile
from forecasts.demand.engine.members import EtsMember
from forecasts.demand.engine.scale import Scale


def _seasonal_growth(n: int = 40, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    return 100 * np.exp(0.03 * t) * (1 + 0.1 * np.sin(2 * np.pi * t / 4)) * np.exp(0.02 * rng.standard_normal(n))


def _without_sharing(monkeypatch: pytest.MonkeyPatch) -> None:
    @contextlib.contextmanager
    def off() -> Iterator[None]:
        yield

    monkeypatch.setattr("forecasts.demand.engine.core.shared_fits", off)


def test_a_forecast_with_shared_fits_is_bit_for_bit_the_forecast_without(monkeypatch: pytest.MonkeyPatch):
    y = _seasonal_growth()
    shared = forecast(y, 8, season_length=4).to_dict()
    _without_sharing(monkeypatch)
    fresh = forecast(y, 8, season_length=4).to_dict()
    shared.pop("seconds", None)
    fresh.pop("seconds", None)
    assert shared == fresh


def test_inside_the_block_the_same_ets_fit_is_made_once_and_outside_it_every_time():
    import statsforecast.ets as ets

    y = np.log(_seasonal_growth(30, seed=1))
    calls = []
    with fitcache.shared_fits():  # installs the wrapper
        pass
    inner = ets.etsmodel

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return inner(*args, **kwargs)

    counting._planner_shared_fits = True  # type: ignore[attr-defined]
    original = ets.etsmodel
    try:
        ets.etsmodel = fitcache._sharing(counting, "test")
        member = EtsMember("ets", True, True, 4, form=("AAN", True))
        twin = EtsMember("ets_damped", True, True, 4, form=("AAN", True))
        with fitcache.shared_fits():
            a = member.forecast(y, 4, Scale(True))
            b = twin.forecast(y, 4, Scale(True))
        assert len(calls) == 1
        assert np.array_equal(a, b)
        member.forecast(y, 4, Scale(True))
        twin.forecast(y, 4, Scale(True))
        assert len(calls) == 3
    finally:
        ets.etsmodel = original


def test_fits_are_shared_within_one_block_and_thread_only():
    seen: dict[str, object] = {}

    def other_thread() -> None:
        seen["other"] = fitcache._FITS.get()

    with fitcache.shared_fits():
        mine = fitcache._FITS.get()
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        with fitcache.shared_fits():  # nested: the same store, not a new one
            assert fitcache._FITS.get() is mine
    assert mine is not None
    assert seen["other"] is None
    assert fitcache._FITS.get() is None


def test_an_argument_that_cannot_be_keyed_is_passed_straight_through():
    calls = []

    def fn(x):  # type: ignore[no-untyped-def]
        calls.append(x)
        return {"x": 1}

    shared = fitcache._sharing(fn, "fn")
    with fitcache.shared_fits():
        shared(object())
        shared(object())
        shared(np.arange(3.0))
        shared(np.arange(3.0))
    assert len(calls) == 3


def test_the_damped_search_reuses_the_full_searchs_fits_and_replays_the_bounds(monkeypatch: pytest.MonkeyPatch):
    """ets_f's search narrows its bounds arrays from form to form, so the damped-only search asks
    for the full search's damped forms with bounds that differ only where the fit does not read
    them: found all the same (``_ets_key``), and the arrays replayed as a fresh fit leaves them."""
    import statsforecast.ets as ets

    with fitcache.shared_fits():  # installs the wrappers
        pass
    inner = ets.etsmodel.__wrapped__
    forms = []

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        forms.append(args[2:6])
        return inner(*args, **kwargs)

    monkeypatch.setattr(ets, "etsmodel", fitcache._sharing(counting, "test", keyer=fitcache._ets_key))
    fits = {}
    for y in (_seasonal_growth(), np.log(_seasonal_growth(36, seed=2))):
        for model in ("ZZZ", "AZZ"):
            with fitcache.shared_fits():
                fits["full"] = ets.ets_f(y, 4, model)
                made = len(forms)
                fits["damped"] = ets.ets_f(y, 4, model, damped=True)
                assert len(forms) == made  # every damped form was fitted by the full search
            forms.clear()
            fresh = {"full": ets.ets_f(y, 4, model), "damped": ets.ets_f(y, 4, model, damped=True)}
            for k, fit in fits.items():
                assert fit["method"] == fresh[k]["method"]
                for part in ("par", "states", "residuals"):
                    assert fit[part].tobytes() == fresh[k][part].tobytes()
                assert fit["aicc"] == fresh[k]["aicc"]

    lower, upper = np.array([1e-4, 1e-4, 1e-4, 0.8]), np.array([0.9999, 0.9999, 0.95, 0.98])
    args = (_seasonal_growth(), 4, "M", "A", "N", True, np.nan, np.nan, np.nan, np.nan)
    kwargs = {"opt_crit": "lik", "nmse": 3, "bounds": "both", "maxit": 2000}
    ref_lower, ref_upper = lower.copy(), upper.copy()
    inner(*args, lower=ref_lower, upper=ref_upper, **kwargs)  # narrows beta's upper bound
    with fitcache.shared_fits():
        ets.etsmodel(*args, lower=lower.copy(), upper=np.array([0.9999, 0.9999, 0.9999, 0.98]), **kwargs)
        forms.clear()
        ets.etsmodel(*args, lower=lower, upper=upper, **kwargs)  # gamma's bound differs: not read
    assert not forms
    assert lower.tobytes() == ref_lower.tobytes() and upper.tobytes() == ref_upper.tobytes()


def test_the_weibull_quantile_is_numpys_to_the_last_bit():
    rng = np.random.default_rng(3)
    for trial in range(3000):
        n = int(rng.integers(1, 30))
        x = np.abs(rng.standard_t(3, n)) * 10 ** rng.uniform(-4, 4)
        if trial % 5 == 0:
            x = np.round(x, 1)  # ties
        for p in (0.8, 0.95, float(rng.uniform())):
            assert _weibull_quantile(sorted(x.tolist()), p) == float(np.quantile(x, p, method="weibull"))


def test_every_shared_statsforecast_function_exists_in_the_pinned_release() -> None:
    """An upgrade that renames one would silently give the CPU back (docs/forecasting.md, "Speed"): say so here."""
    import importlib

    from forecasts.demand.engine import fitcache

    for module_name, fn_name in fitcache._SHARED:
        assert callable(getattr(importlib.import_module(module_name), fn_name, None)), (module_name, fn_name)
    import statsforecast.theta

    assert hasattr(statsforecast.theta, "norm")
