"""Pages for loading accounting logs: upload, the runs list, one run with its rejections."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.paginator import Paginator
from django.db.models import Sum
from django.forms.utils import ErrorDict
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import slugify
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_POST

from forecasts.accounting.load import IngestError, ingest_run_create
from forecasts.accounting.models import Cluster, IngestRejection, IngestRun, UsageMonthly
from forecasts.accounting.parsers.formats import FORMATS
from forecasts.accounting.selectors import other_zones, run_resumable
from forecasts.accounting.upload import (
    DETECT,
    IngestUploadHandler,
    format_sniff,
    human_bytes,
    ingest_run_enqueue,
    too_large_message,
    upload_discard,
    upload_store,
    uploads_discard_unkept,
)
from planner.roles import ADMIN, PLANNER, planner_required, role_of
from planner.web.spreadsheet import safe_writer

FORMAT_CHOICES = [(DETECT, "Detect from the file's content")] + [(k, f"{k} — {v}") for k, v in FORMATS.items()]
NEW_CLUSTER = "__new__"
UPLOAD_SLACK_BYTES = 1 << 20  # multipart framing and form fields around the file
NO_FILE_MESSAGE = "Choose a file to upload."


class UploadForm(forms.Form):
    file = forms.FileField(help_text="Plain, gzip-, bzip2- or xz-compressed; the format is read from the content.",
                           error_messages={"required": NO_FILE_MESSAGE, "empty": "The chosen file is empty."})
    format = forms.ChoiceField(choices=FORMAT_CHOICES, initial=DETECT)
    cluster = forms.ChoiceField(choices=(), required=False)
    new_cluster = forms.CharField(required=False, max_length=60, label="New cluster name")
    timezone = forms.CharField(required=False, max_length=64,
                               help_text="IANA zone of local times in the log (PBS, SGE); empty: the cluster's.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        names = list(Cluster.objects.values_list("name", flat=True))
        self.fields["cluster"].choices = [(n, n) for n in names] + [(NEW_CLUSTER, "A new cluster…")]
        self.fields["cluster"].initial = names[0] if names else NEW_CLUSTER

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        chosen = data.get("cluster") or NEW_CLUSTER
        if chosen == NEW_CLUSTER:
            name = (data.get("new_cluster") or "").strip()
            if not name:
                raise forms.ValidationError("Choose a cluster or type the name of a new one.")
            if slugify(name) != name:
                example = slugify(name) or "minerva"
                raise forms.ValidationError(
                    f"A cluster name uses lower-case letters, digits and hyphens, such as {example!r}."
                )
            chosen = name
        data["cluster_name"] = chosen
        return data


def content_too_large(request: HttpRequest) -> bool:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return False
    return length > settings.UPLOAD_MAX_BYTES + UPLOAD_SLACK_BYTES


def form_refused(form: forms.Form, message: str) -> forms.Form:
    """An unbound form carrying one message for the whole form (a body refused before it was read).

    ``add_error`` needs a bound, cleaned form: on an unbound one it raised AttributeError (a 500).
    """
    form._errors = ErrorDict({NON_FIELD_ERRORS: form.error_class([message], error_class="nonfield")})
    return form


def upload_handler_install(request: HttpRequest) -> IngestUploadHandler | None:
    """Stream a multipart body's files to UPLOAD_DIR through our handler; None for any other body.

    Only a multipart body carries files, and only its parsing consults upload handlers. Any other
    body (a urlencoded POST from a client that dropped the file) may already have been parsed by
    middleware (planner.web.edge.RejectMalformedInput reads urlencoded forms for NUL bytes), and
    setting ``upload_handlers`` after that raises AttributeError: such a request simply has no file.
    """
    if request.content_type != "multipart/form-data":
        return None
    handler = IngestUploadHandler(request)
    request.upload_handlers = [handler]
    return handler


@csrf_exempt  # the CSRF check would read the body before our upload handler is in place
@planner_required
def ingest_new(request: HttpRequest) -> HttpResponse:
    """Upload an accounting file; it is loaded by a background job with a progress bar."""
    if request.method != "POST":
        return _render_upload(request, UploadForm())
    if content_too_large(request):
        form = form_refused(UploadForm(), too_large_message(int(request.META["CONTENT_LENGTH"])))
        return _render_upload(request, form, status=413)
    handler = upload_handler_install(request)
    try:
        return _ingest_new(request, handler)  # csrf_protect: refused after the body is streamed to disk
    finally:
        uploads_discard_unkept(handler)


@csrf_protect
def _ingest_new(request: HttpRequest, handler: IngestUploadHandler | None) -> HttpResponse:
    form = UploadForm(request.POST, request.FILES)
    if handler is not None and handler.too_large:
        form = UploadForm(request.POST)
        form.add_error(None, too_large_message(handler.size))
        return _render_upload(request, form, status=413)
    if not form.is_valid():
        discard_uploads(request)
        return _render_upload(request, form, status=400)
    path = upload_store(form.cleaned_data["file"])
    fmt = form.cleaned_data["format"]
    if fmt == DETECT:
        fmt = format_sniff(path) or ""
        if not fmt:
            upload_discard(path)
            form.add_error("format", "The format could not be recognised from the file's first 64 KB; "
                                     "choose it from the list.")
            return _render_upload(request, form, status=400)
    try:
        run = ingest_run_create(cluster_name=form.cleaned_data["cluster_name"], fmt=fmt, paths=[path],
                                tz=form.cleaned_data["timezone"].strip() or None, user=request.user,
                                source="upload")
    except (IngestError, ValueError) as exc:
        upload_discard(path)
        form.add_error(None, str(exc))
        return _render_upload(request, form, status=400)
    job = ingest_run_enqueue(run=run, user=request.user)
    messages.info(request, f"Loading {path.name} ({human_bytes(path.stat().st_size)}) as {fmt} into "
                           f"{run.cluster.name}; this page follows the load and opens its summary when done.")
    return redirect("job", pk=job.pk)


def discard_uploads(request: HttpRequest) -> None:
    for uploaded in request.FILES.values():
        path = getattr(uploaded, "path", None)
        if path is not None:
            uploaded.close()
            upload_discard(path)


def _render_upload(request: HttpRequest, form: UploadForm, status: int = 200) -> HttpResponse:
    return render(request, "usage/ingest_new.html", {
        "form": form, "max_bytes": settings.UPLOAD_MAX_BYTES, "max_human": human_bytes(settings.UPLOAD_MAX_BYTES),
        "formats": FORMATS, "new_cluster": NEW_CLUSTER,
    }, status=status)


@planner_required
def ingest_runs(request: HttpRequest) -> HttpResponse:
    runs = (IngestRun.objects.select_related("cluster", "created_by", "background_job")
            .prefetch_related("files").order_by("-created_at"))
    page = Paginator(runs, 25).get_page(request.GET.get("page"))
    return render(request, "usage/ingest_runs.html", {"page": page, "runs": page.object_list})


@planner_required
def ingest_run(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(IngestRun.objects.select_related("cluster", "created_by", "background_job"), pk=pk)
    rejections = run.rejections.select_related("file").order_by("file__position", "line")
    page = Paginator(rejections, 50).get_page(request.GET.get("page"))
    counted = run.jobs_ingested + run.duplicates + run.skipped + run.rejected
    reasons = sorted(run.skipped_reasons.items(), key=lambda kv: -kv[1])
    return render(request, "usage/ingest_run.html", {
        "run": run, "files": run.files.all(), "page": page, "rejections": page.object_list,
        "counted": counted, "adds_up": counted == run.records_read, "reasons": reasons,
        "job": run.background_job,
        "in_progress": run.status in (IngestRun.Status.QUEUED, IngestRun.Status.RUNNING),
        "unassigned": _unassigned_share(run), "can_map": role_of(request.user) in (ADMIN, PLANNER),
        "other_zones": other_zones(run), "resumable": run_resumable(run),
    })


def _unassigned_share(run: IngestRun) -> dict[str, Any] | None:
    """Of the usage on the run's cluster in the months it covers, how much sits in Unassigned (rollups)."""
    if run.status != IngestRun.Status.COMPLETED or not run.first_start or not run.last_end:
        return None
    months = UsageMonthly.objects.filter(cluster=run.cluster, month__gte=run.first_start.date().replace(day=1),
                                         month__lte=run.last_end.date())
    total = months.aggregate(jobs=Sum("jobs"), core_hours=Sum("core_hours"))
    lost = months.filter(department__code="unassigned").aggregate(jobs=Sum("jobs"), core_hours=Sum("core_hours"))
    if not total["core_hours"]:
        return None
    return {"jobs": lost["jobs"] or 0, "core_hours": lost["core_hours"] or 0.0,
            "share": (lost["core_hours"] or 0.0) / total["core_hours"],
            "first": run.first_start.date().replace(day=1), "last": run.last_end.date()}


@require_POST
@planner_required
def ingest_resume(request: HttpRequest, pk: int) -> HttpResponse:
    """Re-enqueue a failed run; it continues after its last committed batch."""
    run = get_object_or_404(IngestRun.objects.select_related("cluster"), pk=pk)
    if run.status != IngestRun.Status.FAILED:
        messages.error(request, f"Run #{run.pk} is {run.status}; only a failed run can be resumed.")
        return redirect("ingest-run", pk=run.pk)
    if not run_resumable(run):
        messages.error(request, f"Run #{run.pk} cannot be resumed: {run.error}")
        return redirect("ingest-run", pk=run.pk)
    IngestRun.objects.filter(pk=run.pk).update(status=IngestRun.Status.QUEUED)
    job = ingest_run_enqueue(run=run, user=request.user)
    messages.info(request, f"Resuming run #{run.pk} after its last committed batch.")
    return redirect("job", pk=job.pk)


class _Echo:
    def write(self, value: str) -> str:
        return value


def rejection_rows(run: IngestRun) -> Iterator[list[Any]]:
    yield ["run", "file", "line", "reason", "raw"]
    rows = (IngestRejection.objects.filter(run=run).order_by("file__position", "line")
            .values_list("file__name", "line", "reason", "raw"))
    for name, line, reason, raw in rows.iterator(chunk_size=2000):
        yield [run.pk, name, line, reason, raw]


@planner_required
def ingest_rejections_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    """Every rejected record of a run, streamed (a run may reject millions of lines)."""
    run = get_object_or_404(IngestRun, pk=pk)
    writer = safe_writer(_Echo())
    response = StreamingHttpResponse((writer.writerow(r) for r in rejection_rows(run)), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="ingest-{run.pk}-rejections.csv"'
    return response
