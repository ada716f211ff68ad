from django.apps import AppConfig


class ForecastsConfig(AppConfig):
    name = "forecasts"
    verbose_name = "Demand: usage, organisation and forecasts"

    def ready(self) -> None:
        # Each sub-domain registers its own admin pages (Django's autodiscovery looks only
        # for forecasts.admin, which this layout does not have).
        from forecasts.accounting import admin as _accounting  # noqa: F401
        from forecasts.accounting.load import batch_rollup_register
        from forecasts.accounting.org import attribution_changed
        from forecasts.chargeback import admin as _chargeback  # noqa: F401
        from forecasts.chargeback.services import statements_reprice_after_attribution_change
        from forecasts.storage import admin as _storage  # noqa: F401
        from forecasts.workload.services import batch_rollup_ctes

        # Data flows one way (accounting -> workload, chargeback): accounting offers hooks and
        # the downstream sub-domains are plugged into them here, at start-up.
        batch_rollup_register("workload-shape", batch_rollup_ctes())
        attribution_changed.connect(statements_reprice_after_attribution_change,
                                    dispatch_uid="chargeback-reprice-after-attribution")
