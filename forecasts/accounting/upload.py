"""Uploads of accounting files and starting ingest runs as background jobs.

The page and the API share this: an upload handler that streams the file straight into
settings.UPLOAD_DIR in chunks (never held in memory, never copied twice) and stops at
settings.UPLOAD_MAX_BYTES; format sniffing on the decompressed head; and enqueueing the
lead's ``ingest_accounting(job_id, run_id)`` task once the run and its job are committed.
"""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.core.files.uploadhandler import FileUploadHandler, StopUpload
from django.db import transaction
from django.utils.text import get_valid_filename

from forecasts.accounting.models import IngestRun
from forecasts.accounting.parsers.compression import UTF8_BOM, open_source
from forecasts.accounting.parsers.formats import SNIFF_BYTES, detect_format
from planner.jobs.models import BackgroundJob

DETECT = "detect"


def human_bytes(n: int | float) -> str:
    """1536 -> '1.5 KB' in binary units, as Django's filesizeformat shows file sizes elsewhere."""
    value = float(n)
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if value < 1024 or unit == "TB":
            return f"{value:,.0f} {unit}" if unit == "bytes" else f"{value:,.1f} {unit}"
        value /= 1024
    return f"{value:,.1f} TB"  # pragma: no cover


SERVER_COMMAND = "python manage.py ingest_accounting --format F --cluster NAME PATH"


def too_large_message(size: int | None = None, command: str = SERVER_COMMAND) -> str:
    limit = human_bytes(settings.UPLOAD_MAX_BYTES)
    got = f" (this one is {human_bytes(size)})" if size else ""
    return (f"The file is larger than the upload limit of {limit}{got}. Compress it (gzip or bzip2 are read "
            f"directly), split it, or load it on the server with: {command}")


class StoredUpload(UploadedFile):
    """An uploaded file already at its final place under UPLOAD_DIR."""

    def __init__(self, path: Path, name: str, content_type: str | None, size: int, charset: str | None) -> None:
        super().__init__(path.open("rb"), name, content_type, size, charset)
        self.path = path
        self.kept = False  # set by upload_store: a run or scan owns the file now

    def temporary_file_path(self) -> str:
        return str(self.path)


class IngestUploadHandler(FileUploadHandler):
    """Writes each uploaded file chunk by chunk to UPLOAD_DIR/<uuid>/<name>, up to the limit.

    When the limit is passed the partial file is deleted, ``too_large`` is set, and the
    rest of the body is discarded; the view then answers with a clear message.
    """

    def __init__(self, request: Any = None) -> None:
        super().__init__(request)
        self.max_bytes = int(settings.UPLOAD_MAX_BYTES)
        self.too_large = False
        self.size = 0
        self.path: Path | None = None
        self._out: Any = None
        self.stored: list[StoredUpload] = []  # every file written; upload_store marks the ones kept

    def handle_raw_input(self, input_data: Any, META: Any, content_length: int, boundary: Any,  # noqa: N803
                         encoding: str | None = None) -> None:
        return None

    def new_file(self, *args: Any, **kwargs: Any) -> None:
        super().new_file(*args, **kwargs)
        directory = Path(settings.UPLOAD_DIR) / uuid.uuid4().hex
        directory.mkdir(parents=True, exist_ok=True)
        self.path = directory / (get_valid_filename(Path(self.file_name or "upload").name) or "upload")
        self._out = self.path.open("wb")
        self.size = 0

    def receive_data_chunk(self, raw_data: bytes, start: int) -> None:
        self.size += len(raw_data)
        if self.size > self.max_bytes:
            self.too_large = True
            self._discard()
            raise StopUpload(connection_reset=False)
        self._out.write(raw_data)
        return None

    def file_complete(self, file_size: int) -> StoredUpload | None:
        if self._out is None or self.path is None:
            return None
        self._out.close()
        self._out = None
        stored = StoredUpload(self.path, self.file_name, self.content_type, file_size, self.charset)
        self.stored.append(stored)
        return stored

    def upload_interrupted(self) -> None:
        self._discard()

    def _discard(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None
        if self.path is not None:
            upload_discard(self.path)
            self.path = None


def upload_discard(path: Path | str) -> None:
    """Remove an uploaded file and its per-upload directory (after a rejected form)."""
    path = Path(path)
    upload_root = Path(settings.UPLOAD_DIR).resolve()
    if path.parent.resolve().parent == upload_root:
        shutil.rmtree(path.parent, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def uploads_discard_unkept(handler: IngestUploadHandler | None) -> None:
    """Remove the files a request streamed to disk that no run or scan took (upload_store).

    The body is streamed before the CSRF check and the API's permission check read it, so a request
    they refuse has already written its file; called when the response is made, whatever it is.
    """
    if handler is None:
        return
    for stored in handler.stored:
        if not stored.kept:
            stored.close()
            upload_discard(stored.path)
    handler.stored = []


def upload_store(uploaded: Any) -> Path:
    """The path of an uploaded file under UPLOAD_DIR, copying in chunks if another handler took it."""
    if isinstance(uploaded, StoredUpload):
        uploaded.close()
        uploaded.kept = True
        return uploaded.path
    directory = Path(settings.UPLOAD_DIR) / uuid.uuid4().hex
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / (get_valid_filename(Path(uploaded.name or "upload").name) or "upload")
    with path.open("wb") as out:
        for chunk in uploaded.chunks(1 << 20):
            out.write(chunk)
    return path


def format_sniff(path: Path) -> str | None:
    """The accounting format of a file from its first 64 KB after decompression, or None."""
    try:
        with open_source(path) as stream:
            head = stream.read(SNIFF_BYTES).removeprefix(UTF8_BOM)
    except (OSError, EOFError, ValueError):
        return None
    return detect_format(head)


def ingest_run_enqueue(*, run: IngestRun, user: Any = None) -> BackgroundJob:
    """Start (or resume) a run as a background job watched by a progress bar.

    Resuming is safe: the service continues after the run's last committed batch.
    """
    from forecasts.tasks import ingest_accounting

    names = ", ".join(f.name for f in run.files.all()) or "files"
    job = BackgroundJob.objects.create(
        kind="ingest", label=f"Loading {names} into {run.cluster.name} ({run.format})",
        params={"run": run.pk}, unit="records",
        created_by=user if user is not None and user.is_authenticated else None,
    )
    IngestRun.objects.filter(pk=run.pk).update(background_job=job)
    run.background_job = job
    job_id, run_id = job.pk, run.pk
    transaction.on_commit(lambda: ingest_accounting.delay(job_id, run_id))
    return job
