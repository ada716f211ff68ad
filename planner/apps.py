from django.apps import AppConfig


class PlannerConfig(AppConfig):
    name = "planner"
    verbose_name = "Supply: hardware, designs and reports"

    def ready(self) -> None:
        # Each sub-domain registers its own admin pages (Django's autodiscovery looks only
        # for planner.admin, which this layout does not have).
        from planner.designs import admin as _designs  # noqa: F401
        from planner.hardware import admin as _hardware  # noqa: F401
