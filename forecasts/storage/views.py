"""Uploading a file-system scan (/usage/storage/upload/) and a snapshot's rejected lines as CSV.

The upload reuses the accounting upload's pieces (forecasts/accounting/upload.py): the
chunked handler writing straight into settings.UPLOAD_DIR up to settings.UPLOAD_MAX_BYTES,
and static/js/upload.js; the load runs as forecasts.storage.tasks.storage_scan_ingest with a
progress bar and lands on the storage page of the file system.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.csrf import csrf_exempt, csrf_protect

from forecasts.accounting.upload import (
    IngestUploadHandler,
    human_bytes,
    too_large_message,
    upload_discard,
    upload_store,
    uploads_discard_unkept,
)
from forecasts.accounting.views import (
    NO_FILE_MESSAGE,
    _Echo,
    content_too_large,
    discard_uploads,
    form_refused,
    upload_handler_install,
)
from forecasts.storage.models import FileSystem, StorageRejection, StorageSnapshot
from forecasts.storage.services import StorageScanError, storage_scan_start
from planner.roles import planner_required
from planner.web.spreadsheet import safe_writer

NEW_FILESYSTEM = "__new__"
SERVER_COMMAND = "python manage.py ingest_storage_scan --filesystem NAME --format F PATH"
FORMAT_CHOICES = [
    ("tsv", "tsv — find -printf / GUFI listing (size, owner, group, mtime, type, path)"),
    ("gpfs", "gpfs — GPFS mmapplypolicy LIST output"),
    ("histogram", "histogram — pre-aggregated size bins (counts and bytes)"),
]


def filesystem_name_error(name: str) -> str | None:
    """Why a new file-system name is not acceptable, or None (shared with the API)."""
    if not name:
        return "Choose a file system or type the name of a new one."
    if slugify(name) != name:
        return (f"A file-system name uses lower-case letters, digits and hyphens, "
                f"such as {slugify(name) or 'gpfs-projects'!r}.")
    return None


class ScanUploadForm(forms.Form):
    file = forms.FileField(help_text="Plain, gzip-, bzip2- or xz-compressed.",
                           error_messages={"required": NO_FILE_MESSAGE, "empty": "The chosen file is empty."})
    format = forms.ChoiceField(choices=FORMAT_CHOICES, initial="tsv")
    filesystem = forms.ChoiceField(choices=(), required=False)
    new_filesystem = forms.CharField(required=False, max_length=60, label="New file system name")
    taken_on = forms.DateField(label="Scan date", help_text="The day the scan was taken.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        names = list(FileSystem.objects.values_list("name", flat=True))
        self.fields["filesystem"].choices = [(n, n) for n in names] + [(NEW_FILESYSTEM, "A new file system…")]
        self.fields["filesystem"].initial = names[0] if names else NEW_FILESYSTEM
        self.fields["taken_on"].initial = timezone.localdate()

    def clean_taken_on(self) -> date:
        value: date = self.cleaned_data["taken_on"]
        if value > timezone.localdate():
            raise forms.ValidationError("The scan date is in the future.")
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        chosen = data.get("filesystem") or NEW_FILESYSTEM
        if chosen == NEW_FILESYSTEM:
            chosen = (data.get("new_filesystem") or "").strip()
            error = filesystem_name_error(chosen)
            if error:
                raise forms.ValidationError(error)
        data["filesystem_name"] = chosen
        return data


@csrf_exempt  # the CSRF check would read the body before our upload handler is in place
@planner_required
def storage_upload(request: HttpRequest) -> HttpResponse:
    """Upload a scan; it is loaded by a background job with a progress bar."""
    if request.method == "POST":
        if content_too_large(request):
            form = form_refused(ScanUploadForm(), too_large_message(int(request.META["CONTENT_LENGTH"]),
                                                                     SERVER_COMMAND))
            return _render(request, form, status=413)
        handler = upload_handler_install(request)
        try:
            return _storage_upload(request, handler)  # csrf_protect: refused after the body is on disk
        finally:
            uploads_discard_unkept(handler)
    return _render(request, ScanUploadForm())


@csrf_protect
def _storage_upload(request: HttpRequest, handler: IngestUploadHandler | None) -> HttpResponse:
    form = ScanUploadForm(request.POST, request.FILES)
    if handler is not None and handler.too_large:
        form = ScanUploadForm(request.POST)
        form.add_error(None, too_large_message(handler.size, SERVER_COMMAND))
        return _render(request, form, status=413)
    if not form.is_valid():
        discard_uploads(request)
        return _render(request, form, status=400)
    path = upload_store(form.cleaned_data["file"])
    try:
        snapshot = storage_scan_start(filesystem=form.cleaned_data["filesystem_name"], fmt=form.cleaned_data["format"],
                                      path=path, taken_on=form.cleaned_data["taken_on"], user=request.user)
    except StorageScanError as exc:
        upload_discard(path)
        form.add_error(None, str(exc))
        return _render(request, form, status=400)
    messages.info(request, f"Loading {path.name} ({human_bytes(path.stat().st_size)}) as a {snapshot.format} scan "
                           f"of {snapshot.filesystem.name} on {snapshot.taken_on}; this page follows the load and "
                           f"opens the storage page when done.")
    return redirect("job", pk=snapshot.background_job_id)


def _render(request: HttpRequest, form: ScanUploadForm, status: int = 200) -> HttpResponse:
    return render(request, "usage/storage_upload.html", {
        "form": form, "max_bytes": settings.UPLOAD_MAX_BYTES, "max_human": human_bytes(settings.UPLOAD_MAX_BYTES),
        "new_filesystem": NEW_FILESYSTEM, "server_command": SERVER_COMMAND,
    }, status=status)


def _rejection_rows(snapshot: StorageSnapshot) -> Iterator[list[Any]]:
    yield ["filesystem", "taken_on", "scan", "line", "reason", "raw"]
    rows = StorageRejection.objects.filter(snapshot=snapshot).order_by("line").values_list("line", "reason", "raw")
    for line, reason, raw in rows.iterator(chunk_size=2000):
        yield [snapshot.filesystem.name, snapshot.taken_on.isoformat(), snapshot.scan_name, line, reason, raw]


@planner_required
def storage_rejections_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    """The rejected lines kept for a snapshot (the first 1,000), with line numbers and reasons."""
    snapshot = get_object_or_404(StorageSnapshot.objects.select_related("filesystem"), pk=pk)
    writer = safe_writer(_Echo())
    response = StreamingHttpResponse((writer.writerow(r) for r in _rejection_rows(snapshot)), content_type="text/csv")
    response["Content-Disposition"] = (f'attachment; filename="storage-{snapshot.filesystem.name}-'
                                       f'{snapshot.taken_on}-rejections.csv"')
    return response
