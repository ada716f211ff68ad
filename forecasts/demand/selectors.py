"""Reads of stored forecasts for other areas (designs: forecast prices instead of constants)."""

from __future__ import annotations

from forecasts.demand.models import ExternalSeries, ForecastFit


class NoPriceForecast(LookupError):
    """The series has no stored fit, or the fit does not reach the year asked."""


def price_forecast_fit(series_id: int) -> ForecastFit:
    fit = ForecastFit.objects.filter(external_series_id=series_id).order_by("-created_at").first()
    if fit is None:
        name = ExternalSeries.objects.filter(pk=series_id).values_list("name", flat=True).first()
        raise NoPriceForecast(f"series {name or series_id!r} has no forecast yet: fit it on its page or with "
                              "python manage.py forecast_series PATH --save NAME")
    return fit


def price_forecast_for(series_id: int, year: int) -> float:
    """Median of the latest stored forecast of an external series for a calendar year (series units;
    observed years return the observed value).  The fit's id is ``price_forecast_fit(id).pk``."""
    fit = price_forecast_fit(series_id)
    for y in fit.yearly:
        if y["year"] == year:
            return float(y["median"])
    years = [y["year"] for y in fit.yearly]
    raise NoPriceForecast(f"forecast #{fit.pk} of series {series_id} covers {min(years)}-{max(years)}, not {year}")


def price_forecast_range(series_id: int, year: int) -> tuple[float, float, float]:
    """(p10, median, p90) for a calendar year, for reports that show the spread."""
    fit = price_forecast_fit(series_id)
    for y in fit.yearly:
        if y["year"] == year:
            return float(y["p10"]), float(y["median"]), float(y["p90"])
    raise NoPriceForecast(f"forecast #{fit.pk} of series {series_id} does not cover {year}")
