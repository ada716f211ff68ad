"""REST API for file-system scans (planners and admins).

POST /api/v1/storage-scans/ (multipart: file, filesystem, format, taken_on) -> 202 with the
snapshot, its background job and where to poll; GET lists snapshots (newest first) and reads one.
Uploads stream through the accounting upload handler (forecasts/accounting/upload.py).
"""

from __future__ import annotations

from typing import Any

from django.urls import include, path, reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from forecasts.accounting.api_upload import StreamedUploadMixin
from forecasts.accounting.upload import upload_discard, upload_store
from forecasts.storage.models import StorageSnapshot
from forecasts.storage.services import FORMATS, StorageScanError, storage_scan_start
from forecasts.storage.tasks import storage_result_url
from forecasts.storage.views import SERVER_COMMAND, filesystem_name_error
from planner.jobs.services import job_status
from planner.roles import IsPlanner


class StorageScanIn(serializers.Serializer):
    file = serializers.FileField(help_text="The scan (plain, gzip, bzip2 or xz)")
    filesystem = serializers.CharField(max_length=60, help_text="File-system name (created if new)")
    format = serializers.ChoiceField(choices=FORMATS, help_text="tsv (find/GUFI), gpfs (policy LIST) or histogram")
    taken_on = serializers.DateField(help_text="The scan date, YYYY-MM-DD")

    def validate_filesystem(self, value: str) -> str:
        value = value.strip()
        error = filesystem_name_error(value)
        if error:
            raise serializers.ValidationError(error)
        return value


class StorageScanOut(serializers.ModelSerializer):
    filesystem = serializers.CharField(source="filesystem.name")
    lines_stored = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()
    rejections_url = serializers.SerializerMethodField()

    class Meta:
        model = StorageSnapshot
        fields = ["id", "status", "filesystem", "taken_on", "format", "scan_name", "scan_sha256", "files",
                  "bytes_total", "directories", "zero_length", "mean_size_bytes", "median_size_bytes",
                  "lines_read", "lines_stored", "lines_skipped", "lines_rejected", "seconds", "error",
                  "created_at", "progress", "page_url", "rejections_url"]

    def get_lines_stored(self, s: StorageSnapshot) -> int:
        """Lines that became entries: lines_read = stored + skipped + rejected."""
        return s.lines_read - s.lines_skipped - s.lines_rejected

    def get_progress(self, s: StorageSnapshot) -> dict[str, Any] | None:
        if s.background_job is None:
            return None
        st = job_status(s.background_job)
        return {k: st[k] for k in ("id", "status", "done", "total", "unit", "fraction", "rate_per_s", "eta_s",
                                   "elapsed_s", "message")}

    def get_page_url(self, s: StorageSnapshot) -> str:
        return self._absolute(storage_result_url(s))

    def get_rejections_url(self, s: StorageSnapshot) -> str:
        return self._absolute(reverse("storage-rejections-csv", args=[s.pk]))

    def _absolute(self, url: str) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request is not None else url


class StorageScanAccepted(serializers.Serializer):
    snapshot = serializers.IntegerField()
    job = serializers.IntegerField()
    status = serializers.CharField()
    status_url = serializers.CharField(help_text="this snapshot in the API (progress, then counts)")
    job_url = serializers.CharField(help_text="the background job's status JSON")


class StorageScanViewSet(StreamedUploadMixin, viewsets.ReadOnlyModelViewSet):
    """File-system scans: upload one to load it in the background, then poll it for progress and counts."""

    permission_classes = [IsPlanner]
    serializer_class = StorageScanOut
    parser_classes = [MultiPartParser, FormParser]
    server_command = SERVER_COMMAND

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return (StorageSnapshot.objects.select_related("filesystem", "background_job")
                .order_by("-created_at", "-pk"))

    @extend_schema(request={"multipart/form-data": StorageScanIn}, responses={202: StorageScanAccepted})
    def create(self, request: Request) -> Response:
        if (refused := self.upload_refused(request)) is not None:
            return refused
        data = request.data
        form = StorageScanIn(data=data)
        if not form.is_valid():
            self.discard_uploads(request)
            return Response(form.errors, status=status.HTTP_400_BAD_REQUEST)
        file_path = upload_store(form.validated_data["file"])
        try:
            snapshot = storage_scan_start(filesystem=form.validated_data["filesystem"],
                                          fmt=form.validated_data["format"], path=file_path,
                                          taken_on=form.validated_data["taken_on"], user=request.user)
        except StorageScanError as exc:
            upload_discard(file_path)
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({
            "snapshot": snapshot.pk, "job": snapshot.background_job_id, "status": snapshot.status,
            "status_url": request.build_absolute_uri(reverse("storage-scan-detail", args=[snapshot.pk])),
            "job_url": request.build_absolute_uri(reverse("job-json", args=[snapshot.background_job_id])),
        }, status=status.HTTP_202_ACCEPTED)


router = SimpleRouter()
router.register("storage-scans", StorageScanViewSet, basename="storage-scan")

urlpatterns = [path("", include(router.urls))]
