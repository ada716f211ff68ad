from django.apps import AppConfig


class ForecastsConfig(AppConfig):
    name = "forecasts"
    verbose_name = "Demand: usage, organisation and forecasts"
