"""Price trends in designs, Django side: resolve a scenario's ``price_trends`` against stored forecasts.

The pure core (planner.designs.prices) asks a resolver for a price series' yearly median / P10 / P90; this one
reads the latest stored ForecastFit of an ExternalSeries (forecasts.demand.selectors), by name or id.
Years the series observed come back as observed values (the interval collapses to the value there).
"""

from __future__ import annotations

from typing import Any

from forecasts.demand.models import ExternalSeries
from forecasts.demand.selectors import NoPriceForecast, price_forecast_fit
from planner.designs.prices import SeriesForecast


def _series(ref: str | int) -> ExternalSeries:
    qs = ExternalSeries.objects.all()
    found = None
    if isinstance(ref, int) or (isinstance(ref, str) and ref.strip().isdigit()):
        found = qs.filter(pk=int(ref)).first()
    if found is None and isinstance(ref, str):
        found = qs.filter(name=ref).first() or qs.filter(name__iexact=ref.strip()).first()
    if found is None:
        known = ", ".join(repr(n) for n in qs.values_list("name", flat=True)[:8]) or "none stored yet"
        raise NoPriceForecast(f"no price series {ref!r} (known: {known}); load one on the Forecasts > series page "
                              "or with python manage.py forecast_series PATH --save NAME")
    return found


def stored_price_resolver(ref: str | int, years: list[int]) -> SeriesForecast:
    """planner.designs.prices.PriceResolver over the latest stored fit of an external series."""
    series = _series(ref)
    fit = price_forecast_fit(series.pk)
    median: dict[int, float] = {}
    p10: dict[int, float] = {}
    p90: dict[int, float] = {}
    observed: set[int] = set()
    for y in fit.yearly:
        year = int(y["year"])
        if y.get("median") is None:
            continue
        median[year] = float(y["median"])
        p10[year] = float(y["p10"] if y.get("p10") is not None else y["median"])
        p90[year] = float(y["p90"] if y.get("p90") is not None else y["median"])
        if not y.get("periods_forecast"):
            observed.add(year)
    label = f"fit #{fit.pk}: {fit.family}" + (" on log values" if (fit.result or {}).get("log") else "")
    return SeriesForecast(name=series.name, units=series.units, median=median, p10=p10, p90=p90,
                          series_id=series.pk, fit_id=fit.pk, fit_label=label, observed=observed)


def price_sources_summary(sources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows for the design and comparison pages: one per forecast price, with its year range and span."""
    rows = []
    for s in sources or []:
        years = s.get("years") or []
        forecast_years = [y["year"] for y in years if not y.get("observed")]
        first, last = (years[0], years[-1]) if years else ({}, {})
        observed = [y["year"] for y in years if y.get("observed")]
        if not forecast_years:
            when = f" · {observed[0]}-{observed[-1]} observed" if observed else ""
        elif observed:
            when = f" · observed to {observed[-1]}, forecast {forecast_years[0]}-{forecast_years[-1]}"
        else:
            when = ""
        rows.append(s | {
            "first_year": first.get("year"), "last_year": last.get("year"),
            "first_multiplier": first.get("multiplier"), "last_multiplier": last.get("multiplier"),
            "forecast_years": forecast_years,
            "badge": f"forecast: {s.get('target')} ({s.get('units')}), {s.get('percentile')} of fit #{s.get('fit_id')}"
                     + when,
        })
    return rows
