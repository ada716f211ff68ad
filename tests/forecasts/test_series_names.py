"""A fit's series on pages names departments as the Department picker does; the code form stays for messages."""

from __future__ import annotations

from typing import Any

from forecasts.accounting.models import Cluster
from forecasts.demand.models import ForecastFit


def test_a_fits_series_reads_with_department_names_and_keeps_its_code_label(departments: dict[str, Any]) -> None:
    nexus = Cluster.objects.create(name="nexus")
    one = ForecastFit(cluster=nexus, department=departments["genomics"], metric="core_hours")
    but = ForecastFit(cluster=nexus, exclude_department=departments["genomics"], metric="core_hours")
    every = ForecastFit(cluster=None, metric="core_hours")
    assert one.series_name == "nexus / Genetics and Genomic Sciences / " + one.get_metric_display()
    assert but.series_name.startswith("nexus / all but Genetics and Genomic Sciences / ")
    assert but.series_label.startswith("nexus / all but ggs / ")
    assert every.series_name == every.series_label == "all clusters / all departments / " + every.get_metric_display()
