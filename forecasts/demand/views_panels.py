"""The panel page (/forecasts/panel/): a planner uploads a long CSV of series and sees the scores
(with a holdout) or downloads the forecasts."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from forecasts.demand.panels import MAX_WEB_SERIES, PanelError, panel_run, usage_panel_csv
from planner.roles import planner_required

FREQUENCY_LABELS = (("A", "yearly"), ("S", "half-yearly"), ("Q", "quarterly"), ("M", "monthly"))


def _periods(name: str, value: str | None, default: int, lo: int, hi: int) -> int:
    """A whole number of periods from ``lo`` to ``hi`` (blank: ``default``); anything else is refused with the
    range, as the API refuses it: a holdout of -3 read as 0 would forecast instead of score, silently."""
    text = (value or "").strip()
    if not text:
        return default
    try:
        number = int(text)
    except ValueError:
        number = None
    if number is None or not lo <= number <= hi:
        raise PanelError(f"{name}: expected a whole number of periods from {lo} to {hi}, got {text[:20]!r}")
    return number


@planner_required
def panel(request: HttpRequest) -> HttpResponse:
    ctx: dict[str, Any] = {"frequencies": FREQUENCY_LABELS, "max_series": MAX_WEB_SERIES,
                           "form": {"frequency": "A", "horizon": 6, "holdout": 6}}
    if request.method == "POST":
        upload = request.FILES.get("file")
        freq = request.POST.get("frequency", "A")
        ctx["form"] = {"frequency": freq, "horizon": request.POST.get("horizon", ""),
                       "holdout": request.POST.get("holdout", "")}
        if upload is None:
            ctx["error"] = "choose a CSV file with columns series_id,timestamp,value"
        else:
            try:
                horizon = _periods("horizon", request.POST.get("horizon"), 6, 1, 240)
                holdout = _periods("holdout", request.POST.get("holdout"), 0, 0, 240)
                ctx["form"] |= {"horizon": horizon, "holdout": holdout}
                run = panel_run(upload.read(), frequency=freq, horizon=horizon, holdout=holdout, name=upload.name,
                                jobs=1, max_series=MAX_WEB_SERIES)
            except PanelError as exc:
                ctx["error"] = str(exc)
            else:
                if request.POST.get("download"):
                    resp = HttpResponse(run.csv(), content_type="text/csv")
                    resp["Content-Disposition"] = 'attachment; filename="panel-forecast.csv"'
                    return resp
                rows = run.rows()
                ctx.update(summary=run.summary, file_name=upload.name, rows=rows[:60], rows_total=len(rows),
                           scores=sorted((run.summary.get("scores") or {}).items(),
                                         key=lambda kv: (kv[0] != "combined", kv[1].get("smape") or 0)))
    return render(request, "forecasts/panel.html", ctx)


@planner_required
def panel_sample(request: HttpRequest) -> HttpResponse:
    """This institution's monthly core-hours per cluster and department as a panel to upload back."""
    text, n = usage_panel_csv()
    if not n:
        return HttpResponse("no usage loaded yet: load accounting logs with python manage.py ingest_accounting "
                            "--format FORMAT --cluster NAME PATH, then download this panel\n",
                            status=404, content_type="text/plain")
    resp = HttpResponse(text, content_type="text/csv")
    resp["Content-Disposition"] = 'attachment; filename="usage-panel-core-hours.csv"'
    return resp
