"""REST API for accounting ingestion (planners and admins).

POST /api/v1/ingestions/ (multipart: file, format, cluster, timezone) -> 202 with the run,
its background job and where to poll; GET lists and reads runs with live progress;
GET /api/v1/ingestions/{id}/rejections/ pages through rejected records.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.urls import include, path, reverse
from django.utils.text import slugify
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import SimpleRouter

from forecasts.accounting.api_upload import StreamedUploadMixin
from forecasts.accounting.load import IngestError, ingest_run_create
from forecasts.accounting.models import IngestRejection, IngestRun
from forecasts.accounting.parsers.formats import FORMATS
from forecasts.accounting.upload import (
    DETECT,
    format_sniff,
    ingest_run_enqueue,
    upload_discard,
    upload_store,
)
from planner.jobs.services import job_status
from planner.roles import IsPlanner


class IngestionIn(serializers.Serializer):
    file = serializers.FileField(help_text="The accounting file (plain, gzip, bzip2 or xz)")
    format = serializers.ChoiceField(
        choices=[DETECT, *FORMATS], default=DETECT, help_text="A format name, or 'detect' to read it from the content",
        error_messages={"invalid_choice": f'"{{input}}" is not a format; use one of: {", ".join([DETECT, *FORMATS])}.'})
    cluster = serializers.CharField(max_length=60, help_text="Cluster name (created if new)")
    timezone = serializers.CharField(max_length=64, required=False, allow_blank=True,
                                     help_text="IANA zone of local times in the log; default the cluster's")

    def validate_timezone(self, value: str) -> str:
        value = value.strip()
        if value:
            try:
                ZoneInfo(value)
            except (ValueError, ZoneInfoNotFoundError):
                raise serializers.ValidationError(
                    f"{value!r} is not a time zone; use an IANA name such as America/New_York or UTC.") from None
        return value

    def validate_cluster(self, value: str) -> str:
        value = value.strip()
        if slugify(value) != value:
            raise serializers.ValidationError(
                "A cluster name uses lower-case letters, digits and hyphens, such as "
                f"{slugify(value) or 'minerva'!r}.")
        return value


class IngestFileOut(serializers.Serializer):
    name = serializers.CharField()
    size_bytes = serializers.IntegerField()
    sha256 = serializers.CharField()


class IngestionOut(serializers.ModelSerializer):
    cluster = serializers.CharField(source="cluster.name")
    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)
    files = IngestFileOut(many=True)
    progress = serializers.SerializerMethodField()
    url = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()

    class Meta:
        model = IngestRun
        fields = ["id", "status", "cluster", "format", "timezone", "source", "created_by", "created_at",
                  "started_at", "finished_at", "seconds", "files", "records_read", "jobs_ingested",
                  "duplicates", "skipped", "rejected", "skipped_reasons", "names_cut", "core_hours", "first_start",
                  "last_end", "error", "progress", "url", "page_url"]

    def get_progress(self, run: IngestRun) -> dict[str, Any] | None:
        """done/total/rate/ETA of the background job running (or that ran) this ingest."""
        if run.background_job is None:
            return None
        s = job_status(run.background_job)
        return {k: s[k] for k in ("id", "status", "done", "total", "unit", "fraction", "rate_per_s", "eta_s",
                                  "elapsed_s", "message")}

    def get_url(self, run: IngestRun) -> str:
        return self._absolute(reverse("ingestion-detail", args=[run.pk]))

    def get_page_url(self, run: IngestRun) -> str:
        return self._absolute(reverse("ingest-run", args=[run.pk]))

    def _absolute(self, url: str) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(url) if request is not None else url


class RejectionOut(serializers.ModelSerializer):
    file = serializers.CharField(source="file.name")

    class Meta:
        model = IngestRejection
        fields = ["file", "line", "reason", "raw"]


class IngestionAccepted(serializers.Serializer):
    run = serializers.IntegerField()
    job = serializers.IntegerField()
    format = serializers.CharField()
    status = serializers.CharField()
    status_url = serializers.CharField()
    job_url = serializers.CharField()


class IngestionViewSet(StreamedUploadMixin, viewsets.ReadOnlyModelViewSet):
    """Accounting ingest runs: upload a file to start one, then poll it for progress and counts."""

    permission_classes = [IsPlanner]
    serializer_class = IngestionOut
    parser_classes = [MultiPartParser, FormParser]

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return (IngestRun.objects.select_related("cluster", "created_by", "background_job")
                .prefetch_related("files").order_by("-created_at"))

    @extend_schema(request={"multipart/form-data": IngestionIn}, responses={202: IngestionAccepted})
    def create(self, request: Request) -> Response:
        if (refused := self.upload_refused(request)) is not None:
            return refused
        data = request.data
        form = IngestionIn(data=data)
        if not form.is_valid():
            self.discard_uploads(request)
            return Response(form.errors, status=status.HTTP_400_BAD_REQUEST)
        path = upload_store(form.validated_data["file"])
        fmt = form.validated_data["format"]
        if fmt == DETECT:
            fmt = format_sniff(path) or ""
            if not fmt:
                upload_discard(path)
                return Response({"format": ["The format could not be recognised from the file's first 64 KB; "
                                            f"pass one of: {', '.join(FORMATS)}."]},
                                status=status.HTTP_400_BAD_REQUEST)
        try:
            run = ingest_run_create(cluster_name=form.validated_data["cluster"], fmt=fmt, paths=[path],
                                    tz=(form.validated_data.get("timezone") or "").strip() or None,
                                    user=request.user, source="api")
        except (IngestError, ValueError) as exc:
            upload_discard(path)
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        job = ingest_run_enqueue(run=run, user=request.user)
        return Response({
            "run": run.pk, "job": job.pk, "format": fmt, "status": run.status,
            "status_url": request.build_absolute_uri(reverse("ingestion-detail", args=[run.pk])),
            "job_url": request.build_absolute_uri(reverse("job-json", args=[job.pk])),
        }, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses=RejectionOut(many=True))
    @action(detail=True, methods=["get"])
    def rejections(self, request: Request, pk: str | None = None) -> Response:
        """Records of this run that could not be parsed: file, line, reason and the raw text."""
        run = self.get_object()
        rows = IngestRejection.objects.filter(run=run).select_related("file").order_by("file__position", "line")
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(RejectionOut(page, many=True).data)


router = SimpleRouter()
router.register("ingestions", IngestionViewSet, basename="ingestion")

urlpatterns = [
    path("", include(router.urls)),
]
