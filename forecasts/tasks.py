"""The demand side's Celery tasks, imported so Celery's autodiscovery registers them.

Each sub-domain keeps its tasks in its own ``tasks.py``; task names are explicit and stable
(the names queued messages carry), so moving a module never orphans a queued task.
"""

from forecasts.accounting.tasks import ingest_accounting
from forecasts.chargeback.tasks import chargeback_compute
from forecasts.demand.tasks import refit_all_series
from forecasts.storage.tasks import storage_scan_ingest

__all__ = ["chargeback_compute", "ingest_accounting", "refit_all_series", "storage_scan_ingest"]
