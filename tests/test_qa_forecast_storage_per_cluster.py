"""A storage forecast asked for one cluster: scans belong to file systems, which have no link to a cluster, so the
series summed every file system and the output (command, API, page) said nothing; a director read it as that
cluster's storage. The command, the API and the page now refuse a cluster for storage_pb, saying why and what to do;
without one, the forecast is labelled as every file system's."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from tests.forecasts.forecast_factories import usage_history
from tests.helpers import login

pytestmark = pytest.mark.django_db

WHY = ("storage_pb is not forecast per cluster: storage scans belong to file systems, which are not linked to "
       "clusters, so cluster 'minerva' has no storage series of its own; leave the cluster out (all clusters) to "
       "forecast every file system together")


@pytest.fixture
def scans(departments: dict[str, Any]) -> None:
    from forecasts.storage.models import FileSystem, StorageSnapshot

    usage_history(departments, months=24)
    fs = FileSystem.objects.create(name="gpfs-work")
    for i in range(24):
        StorageSnapshot.objects.create(filesystem=fs, taken_on=f"{2020 + i // 12}-{i % 12 + 1:02d}-15", format="tsv",
                                       status="completed", bytes_total=(100 + 5 * i) * 10**12, scan_name=f"s{i}")


def test_the_command_refuses_a_cluster_for_storage_with_the_reason(scans: None) -> None:
    with pytest.raises(CommandError) as refused:
        call_command("forecast", "--cluster", "minerva", "--metric", "storage_pb", "--horizon-months", "12",
                     "--json", stdout=StringIO(), stderr=StringIO())
    assert str(refused.value) == WHY
    out = StringIO()
    call_command("forecast", "--metric", "storage_pb", "--horizon-months", "12", "--json", stdout=out,
                 stderr=StringIO())
    assert '"series": "all file systems / PB stored"' in out.getvalue().strip().splitlines()[-1]


def test_the_api_and_the_page_refuse_it_too(scans: None, client: Client, planner_user: Any) -> None:
    login(client, planner_user)
    api = client.post("/api/v1/forecasts/", {"metric": "storage_pb", "cluster": "minerva", "horizon_months": 12},
                      content_type="application/json")
    assert api.status_code == 400 and api.json() == {"series": WHY}
    page = client.post("/forecasts/", {"metric": "storage_pb", "cluster": "minerva", "horizon": "12"})
    assert page.status_code == 200
    assert "cluster &#x27;minerva&#x27; has no storage series of its own" in page.content.decode()
    from forecasts.demand.models import ForecastFit

    assert not ForecastFit.objects.exists()


def test_a_storage_fit_stored_with_a_cluster_before_refits_as_every_file_system(scans: None) -> None:
    from forecasts.demand.models import ForecastFit
    from forecasts.demand.series import refit_fit
    from forecasts.models import Cluster

    old = ForecastFit.objects.create(metric="storage_pb", cluster=Cluster.objects.get(name="minerva"),
                                     units="PB stored", start="2020-01-01", through="2021-12-01", values=[1.0] * 24,
                                     family="linear", selection="override", reason="old", result={}, yearly=[],
                                     options={"horizon": 12})
    new = refit_fit(old)
    assert new.cluster_id is None and new.series_label == "all file systems / PB stored"
