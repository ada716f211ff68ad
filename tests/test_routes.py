"""The route enumerator (tests/routes.py) misses no route and fails loudly on one it cannot fill."""

from __future__ import annotations

import types
from typing import Any

import pytest
from django.urls import get_resolver, path, register_converter

from tests.routes import KINDS, RouteSamples, UnknownRoute, _walk, routes

SAMPLES = RouteSamples(department_code="ggs", department_pk=1, job_pk=1, ingest_run_pk=1, storage_snapshot_pk=1,
                       forecast_fit_pk=1, external_series_pk=1, sequencer_plan_pk=1, statement_pk=1, design_pk=1,
                       optimizer_run_pk=1, report_pk=1, node_type_name="n1", node_type_pk=1, storage_system_pk=1,
                       benchmark_pk=1, user_pk=1)


def _view(request: Any, **kwargs: Any) -> None:  # pragma: no cover - never called
    return None


def _urlconf(*patterns: Any) -> types.ModuleType:
    module = types.ModuleType("tests_routes_urlconf")
    module.urlpatterns = list(patterns)  # type: ignore[attr-defined]
    return module


@pytest.mark.django_db
def test_every_pattern_of_the_url_conf_is_enumerated_with_a_path_that_resolves_to_it() -> None:
    enumerated = list(routes(SAMPLES))
    patterns = {"".join(str(lv.pattern) for lv in levels) for levels, _ in _walk(get_resolver())}
    assert {r.pattern for r in enumerated} == patterns
    assert {r.kind for r in enumerated} <= set(KINDS)
    assert {"page", "api", "export", "chart-json", "admin"} <= {r.kind for r in enumerated}


@pytest.mark.django_db
def test_routes_with_several_sample_values_are_tried_with_each() -> None:
    paths = {r.path for r in routes(SAMPLES) if r.name == "reports:download"}
    assert paths == {f"/reports/1/download/{fmt}/" for fmt in ("pdf", "docx", "html", "zip")}


def test_a_new_route_whose_kwarg_has_no_sample_fails_the_enumeration() -> None:
    conf = _urlconf(path("widgets/<int:widget_id>/", _view, name="widget"))
    with pytest.raises(UnknownRoute, match="'widget'.*'widget_id'"):
        list(routes(SAMPLES, urlconf=conf))  # type: ignore[arg-type]


def test_a_new_route_can_be_given_its_sample_through_extra() -> None:
    conf = _urlconf(path("widgets/<int:widget_id>/", _view, name="widget"))
    samples = RouteSamples(**{**SAMPLES.__dict__, "extra": {"widget": {"widget_id": 7}}})
    assert [r.path for r in routes(samples, urlconf=conf)] == ["/widgets/7/"]  # type: ignore[arg-type]


class _YearConverter:
    regex = "[0-9]{4}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


def test_an_unknown_path_converter_fails_the_enumeration() -> None:
    register_converter(_YearConverter, "yyyy-routes-test")
    conf = _urlconf(path("years/<yyyy-routes-test:year>/", _view, name="year"))
    with pytest.raises(UnknownRoute, match="_YearConverter"):
        list(routes(SAMPLES, urlconf=conf))  # type: ignore[arg-type]


def test_a_route_shadowed_by_an_earlier_pattern_fails_the_enumeration() -> None:
    conf = _urlconf(path("<slug:any>/", _view, name="catch"), path("fixed/", lambda r: None, name="fixed"))
    samples = RouteSamples(**{**SAMPLES.__dict__, "extra": {"catch": {"any": "x"}}})
    with pytest.raises(UnknownRoute, match="shadows"):
        list(routes(samples, urlconf=conf))  # type: ignore[arg-type]
