"""Every route of the product, with concrete URLs, enumerated from the URL conf.

``routes(samples)`` walks ``planner.urls`` (``django.urls.get_resolver()``) and yields one
:class:`Route` per URL pattern (and per sample value where a kwarg has several, e.g. each
report format), with its kwargs filled from :class:`RouteSamples`, the rows a test created.
Access matrices, malformed-input sweeps and load tests iterate over it, so a route added
later is tried without anyone remembering to list it:

- a route whose kwarg has no entry in :data:`SAMPLE_KWARGS` makes the enumeration raise
  :class:`UnknownRoute` naming the route and the kwarg (add a sample, do not skip it);
- a path converter this module does not know raises too;
- every concrete path is resolved back and must reach the same view with the same kwargs.

The fixture it expects: a test builds one :class:`RouteSamples` from rows it created: a
department (the viewer's, "department A") with a priced statement, a background job, an
ingest run, a storage snapshot, a forecast fit, an external series, a sequencer plan, a
design with an optimiser run, a grant report, a node type, a storage system, a benchmark
and a user. Pass another ``RouteSamples`` (department B's rows) to get the same routes
pointing at the other department's objects.

Admin-site routes (kind ``admin``) take their ``object_id`` from the first row of the
admin's model (``"0"`` when its table is empty: the admin answers that with a redirect, a
real request all the same).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import product
from typing import Any

PAGE, API, EXPORT, CHART_JSON, ADMIN = "page", "api", "export", "chart-json", "admin"
KINDS = (PAGE, API, EXPORT, CHART_JSON, ADMIN)

EXPORT_SUFFIXES = (".csv", ".xlsx", ".pdf", ".docx", ".zip", ".yaml")
# routes whose URL does not end in a file suffix but which answer with a file
EXPORT_NAMES = {"reports:download", "forecast-plan-export"}


class UnknownRoute(LookupError):
    """A route this module cannot fill in: add its kwarg to SAMPLE_KWARGS (never skip it)."""


@dataclass(frozen=True)
class RouteSamples:
    """Primary keys and slugs of rows a test created, used to fill route kwargs."""

    department_code: str
    department_pk: int
    job_pk: int
    ingest_run_pk: int
    storage_snapshot_pk: int
    forecast_fit_pk: int
    external_series_pk: int
    sequencer_plan_pk: int
    statement_pk: int
    design_pk: int
    optimizer_run_pk: int
    report_pk: int
    node_type_name: str
    node_type_pk: int
    storage_system_pk: int
    benchmark_pk: int
    user_pk: int
    api_token_pk: int = 0  # an API token of user_pk's (0: none, the revoke route then answers 404)
    extra: dict[str, Any] = field(default_factory=dict)  # samples for routes added by other areas


@dataclass(frozen=True)
class Route:
    name: str  # namespaced URL name ("designs:detail"), or the pattern when the route has none
    pattern: str  # the full pattern, prefixes included
    kind: str  # one of KINDS
    kwargs: dict[str, Any]
    path: str  # the concrete URL ("/designs/3/")
    view: str  # dotted path of the view ("planner.designs.views.design_detail")

    def __str__(self) -> str:
        return f"{self.kind} {self.name} {self.path}"


Sample = Callable[[RouteSamples], Any]  # returns one value or a tuple of values (one route each)


def _s(attr: str) -> Sample:
    return lambda s: getattr(s, attr)


def _const(*values: Any) -> Sample:
    return lambda s: values


def _hardware_kinds(s: RouteSamples) -> tuple[str, ...]:
    from planner.hardware.services import KINDS as CATALOG_KINDS

    return tuple(CATALOG_KINDS)


def _report_formats(s: RouteSamples) -> tuple[str, ...]:
    from planner.reports.models import GrantReport

    return tuple(GrantReport.FORMATS)


def _area_slugs(s: RouteSamples) -> tuple[str, ...]:
    """Areas whose own section does not take over their URL (those are enumerated as themselves)."""
    from django.urls import resolve

    from planner.web.areas import AREAS

    slugs = tuple(a.slug for a in AREAS if resolve(f"/{a.slug}/").url_name == "area")
    return slugs or ("no-such-area",)


def _department_content_type(s: RouteSamples) -> int:
    from django.contrib.contenttypes.models import ContentType

    from forecasts.models import Department

    return int(ContentType.objects.get_for_model(Department).pk)


# route key (namespaced name, or the pattern for unnamed routes) -> kwarg -> sample
SAMPLE_KWARGS: dict[str, dict[str, Sample]] = {
    "job": {"pk": _s("job_pk")},
    "job-json": {"pk": _s("job_pk")},
    "job-retry": {"pk": _s("job_pk")},
    "access-token-revoke": {"pk": _s("api_token_pk")},
    "area": {"slug": _area_slugs},
    "method": {"slug": _const("uncertainty")},
    "api-root": {"format": _const("json")},
    "ingestion-detail": {"pk": _s("ingest_run_pk")},
    "ingestion-rejections": {"pk": _s("ingest_run_pk")},
    "storage-scan-detail": {"pk": _s("storage_snapshot_pk")},
    "sequencer-plan-detail": {"pk": _s("sequencer_plan_pk")},
    "sequencer-plan-versions": {"pk": _s("sequencer_plan_pk")},
    "forecast-detail": {"pk": _s("forecast_fit_pk")},
    "external-series-detail": {"pk": _s("external_series_pk")},
    "external-series-forecast": {"pk": _s("external_series_pk")},
    "chargeback-statement-detail": {"pk": _s("statement_pk")},
    "department-list": {"format": _const("json")},
    "department-detail": {"pk": _s("department_pk"), "format": _const("json")},
    "api-node-type-detail": {"pk": _s("node_type_pk")},
    "api-storage-system-detail": {"pk": _s("storage_system_pk")},
    "api-benchmark-detail": {"pk": _s("benchmark_pk")},
    "api-design-detail": {"pk": _s("design_pk")},
    "api-design-evaluate": {"pk": _s("design_pk")},
    "api-design-optimize": {"pk": _s("design_pk")},
    "api-design-chance": {"pk": _s("design_pk")},
    "api-design-service-level": {"pk": _s("design_pk")},
    "api-design-from-forecast": {"fit": _s("forecast_fit_pk")},
    "api-optimizer-run-detail": {"pk": _s("optimizer_run_pk")},
    "report-detail": {"pk": _s("report_pk")},
    "api-replay-design": {"pk": _s("design_pk")},
    "replay:design": {"pk": _s("design_pk")},
    "workload-csv": {"chart": _const("size", "runtime", "request", "ratio", "wait", "utilisation", "growth")},
    "workload-department": {"department": _s("department_code")},
    "storage-rejections-csv": {"pk": _s("storage_snapshot_pk")},
    "ingest-run": {"pk": _s("ingest_run_pk")},
    "ingest-resume": {"pk": _s("ingest_run_pk")},
    "ingest-rejections-csv": {"pk": _s("ingest_run_pk")},
    "hardware:export": {"kind": _hardware_kinds},
    "hardware:node-type-edit": {"name": _s("node_type_name")},
    "designs:detail": {"pk": _s("design_pk")},
    "designs:edit": {"pk": _s("design_pk")},
    "designs:evaluate": {"pk": _s("design_pk")},
    "designs:optimize": {"pk": _s("design_pk")},
    "designs:years-csv": {"pk": _s("design_pk")},
    "designs:chance-csv": {"pk": _s("design_pk")},
    "designs:service-level": {"pk": _s("design_pk")},
    "designs:use-newest-forecasts": {"pk": _s("design_pk")},
    "designs:from-forecast": {"fit": _s("forecast_fit_pk")},
    "designs:run": {"pk": _s("optimizer_run_pk")},
    "designs:run-confidence-csv": {"pk": _s("optimizer_run_pk")},
    "designs:run-save": {"pk": _s("optimizer_run_pk")},
    "forecast-fit": {"pk": _s("forecast_fit_pk")},
    "forecast-fit-yearly-csv": {"pk": _s("forecast_fit_pk")},
    "forecast-fit-csv": {"pk": _s("forecast_fit_pk")},
    "forecast-series": {"pk": _s("external_series_pk")},
    "forecast-plan": {"pk": _s("sequencer_plan_pk")},
    "forecast-plan-edit": {"pk": _s("sequencer_plan_pk")},
    "forecast-plan-derive": {"pk": _s("sequencer_plan_pk")},
    "forecast-plan-export": {"pk": _s("sequencer_plan_pk"), "fmt": _const("yaml", "counts", "csv")},
    "chargeback-statement": {"pk": _s("statement_pk")},
    "chargeback-statement-csv": {"pk": _s("statement_pk")},
    "chargeback-statement-xlsx": {"pk": _s("statement_pk")},
    "chargeback-statement-pdf": {"pk": _s("statement_pk")},
    "chargeback-ytd": {"code": _s("department_code")},
    "chargeback-ytd-json": {"code": _s("department_code")},
    "chargeback-ytd-csv": {"code": _s("department_code")},
    "reports:detail": {"pk": _s("report_pk")},
    "reports:progress": {"pk": _s("report_pk")},
    "reports:edit": {"pk": _s("report_pk")},
    "reports:regenerate": {"pk": _s("report_pk")},
    "reports:download": {"pk": _s("report_pk"), "fmt": _report_formats},
    # the admin site's own routes (model routes take object_id from the model: see _admin_object_id)
    "admin:view_on_site": {"content_type_id": _department_content_type, "object_id": _s("department_pk")},
    "admin:auth_user_password_change": {"id": _s("user_pk")},
    "admin:app_list": {"app_label": lambda s: ()},  # filled from the pattern's alternation below
    "admin:None:(?P<url>.*)$": {"url": _const("no-such-page/")},
}

KNOWN_CONVERTERS = {"IntConverter", "SlugConverter", "StringConverter", "PathConverter", "UUIDConverter",
                    "FormatSuffixConverter"}


@dataclass(frozen=True)
class _Level:
    pattern: Any  # RoutePattern | RegexPattern of one level of the URL conf
    namespace: str | None


def _walk(resolver: Any, levels: tuple[_Level, ...] = ()) -> Iterator[tuple[tuple[_Level, ...], Any]]:
    from django.urls import URLResolver

    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry, levels + (_Level(entry.pattern, entry.namespace),))
        else:
            yield levels + (_Level(entry.pattern, None),), entry


def _key(levels: tuple[_Level, ...], entry: Any) -> str:
    namespace = ":".join(lv.namespace for lv in levels if lv.namespace)
    name = entry.name if entry.name else None
    if name is None:
        if namespace == "admin":
            return f"admin:None:{levels[-1].pattern}"
        return "".join(str(lv.pattern) for lv in levels)
    return f"{namespace}:{name}" if namespace else name


def _kind(key: str, pattern: str) -> str:
    if pattern.startswith("admin/"):
        return ADMIN
    if pattern.startswith("api/"):
        return API
    tail = pattern.rstrip("/$")
    if key in EXPORT_NAMES or tail.endswith(EXPORT_SUFFIXES):
        return EXPORT
    if tail.endswith(".json"):
        return CHART_JSON
    return PAGE


def _kwarg_names(level: _Level) -> list[str]:
    converters = getattr(level.pattern, "converters", {}) or {}
    for name, converter in converters.items():
        if type(converter).__name__ not in KNOWN_CONVERTERS:
            raise UnknownRoute(f"pattern {level.pattern!s}: converter {type(converter).__name__} for {name!r} is "
                               "not known to tests/routes.py; add it to KNOWN_CONVERTERS with a sample")
    return list(level.pattern.regex.groupindex)


def _admin_object_id(entry: Any) -> tuple[str, ...]:
    model_admin = getattr(entry.callback, "model_admin", None)
    if model_admin is None:
        raise UnknownRoute(f"admin route {entry.pattern!s} has object_id but no model_admin to take it from")
    pk = model_admin.model._default_manager.order_by("pk").values_list("pk", flat=True).first()
    return (str(pk if pk is not None else 0),)


def _values(key: str, kwarg: str, entry: Any, level: _Level, samples: RouteSamples) -> tuple[Any, ...]:
    if kwarg == "app_label" and key == "admin:app_list":
        alternation = re.search(r"\(\?P<app_label>([^)]*)\)", str(level.pattern))
        assert alternation, level.pattern
        return tuple(alternation.group(1).split("|"))
    table = SAMPLE_KWARGS.get(key, {})
    if kwarg in table:
        value = table[kwarg](samples)
    elif key in samples.extra and kwarg in samples.extra[key]:
        value = samples.extra[key][kwarg]
    elif kwarg == "object_id" and key.startswith("admin:"):
        value = _admin_object_id(entry)
    else:
        raise UnknownRoute(f"route {key!r} ({''.join(str(x) for x in [level.pattern])}) needs kwarg {kwarg!r}: "
                           "add a sample to SAMPLE_KWARGS in tests/routes.py (or RouteSamples.extra)")
    values = value if isinstance(value, tuple) else (value,)
    if not values:
        raise UnknownRoute(f"route {key!r}: no sample values for {kwarg!r}")
    return values


def _fill(level: _Level, kwargs: dict[str, Any]) -> str:
    """One level of the URL with its kwargs, the way Django's reverse() builds it."""
    from django.utils.regex_helper import normalize

    converters = getattr(level.pattern, "converters", {}) or {}
    names = set(level.pattern.regex.groupindex)
    text = {k: str(converters[k].to_url(v)) if k in converters else str(v) for k, v in kwargs.items() if k in names}
    for template, params in normalize(level.pattern.regex.pattern):
        if set(params) == names:
            return str(template % text)
    raise UnknownRoute(f"pattern {level.pattern!s} cannot be filled with {sorted(names)}")


def routes(samples: RouteSamples, urlconf: str | None = None) -> Iterator[Route]:
    """Every route of the URL conf (``planner.urls`` unless told), with concrete paths."""
    from django.urls import get_resolver, resolve

    for levels, entry in _walk(get_resolver(urlconf)):
        key = _key(levels, entry)
        pattern = "".join(str(lv.pattern) for lv in levels)
        per_level = [(lv, _kwarg_names(lv)) for lv in levels]
        choices: list[tuple[str, tuple[Any, ...]]] = [
            (kw, _values(key, kw, entry, lv, samples)) for lv, kws in per_level for kw in kws]
        for combo in product(*(vals for _, vals in choices)):
            kwargs = {kw: v for (kw, _), v in zip(choices, combo, strict=True)}
            path = "/" + "".join(_fill(lv, kwargs) for lv in levels)
            match = resolve(path, urlconf)
            if match.func is not entry.callback:
                raise UnknownRoute(f"route {key!r}: {path} resolves to {match._func_path}, not to its own view "
                                   f"{entry.lookup_str} (a pattern shadows it)")
            yield Route(name=key, pattern=pattern, kind=_kind(key, pattern), kwargs=kwargs, path=path,
                        view=entry.lookup_str)
