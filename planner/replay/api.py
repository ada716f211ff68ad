"""REST API for replays (/api/v1/replay/...), planners and admins only (as the designs' API).

POST /api/v1/replay/                 replay a cluster's jobs on a machine now; returns the summary
                                     (the ``replay`` command's JSON with --json)
POST /api/v1/replay/designs/{id}/    replay every year of a design in the background -> 202 + job
GET  /api/v1/replay/designs/{id}/    the latest finished replay of the design (404: none yet)
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from planner.designs.models import Design
from planner.replay.services import MODES, ReplayError, design_replay_latest, design_replay_start, run_replay
from planner.roles import IsPlanner


class ReplayIn(serializers.Serializer):
    cluster = serializers.CharField(help_text="cluster name")
    start = serializers.RegexField(r"^\d{4}-\d{2}$", required=False, help_text="first month YYYY-MM (with end)")
    end = serializers.RegexField(r"^\d{4}-\d{2}$", required=False, help_text="last month YYYY-MM (inclusive)")
    processors = serializers.IntegerField(required=False, min_value=1, help_text="a pool of P processors")
    design = serializers.PrimaryKeyRelatedField(queryset=Design.objects.all(), required=False,
                                                help_text="a design's id: its nodes in year")
    year = serializers.IntegerField(required=False)
    policy = serializers.ChoiceField(choices=["fcfs", "easy"], default="easy")
    mode = serializers.ChoiceField(choices=list(MODES), required=False,
                                   help_text="default: nodes with a design, pool with processors")
    load_scale = serializers.FloatField(default=1.0, min_value=0.01, max_value=100.0,
                                        help_text="arrival rate x F (inter-arrival times / F)")

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if ("processors" in data) == ("design" in data):
            raise serializers.ValidationError("give either processors, or design and year")
        if "design" in data and "year" not in data:
            raise serializers.ValidationError("a design needs a year")
        return data


class DesignReplayIn(serializers.Serializer):
    cluster = serializers.CharField(help_text="the cluster whose last whole year of jobs is replayed")


class ReplayView(APIView):
    """Replay a cluster's jobs now (a year of jobs takes about a second) and return the summary."""

    permission_classes = [IsPlanner]

    @extend_schema(request=ReplayIn, responses={200: OpenApiResponse(description="the summary (docs/replay.md)"),
                                                400: OpenApiResponse(description="invalid input, one message")})
    def post(self, request: Request) -> Response:
        body = ReplayIn(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        design = d.get("design")
        try:
            out = run_replay(cluster=d["cluster"], start=d.get("start"), end=d.get("end"),
                             processors=d.get("processors"), design=design, year=d.get("year"),
                             policy=d["policy"], mode=d.get("mode") or ("nodes" if design else "pool"),
                             load_scale=d["load_scale"])
        except ReplayError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(out)


class DesignReplayView(APIView):
    """A design's queue waits, every year: start a replay (background job) or read the latest one."""

    permission_classes = [IsPlanner]

    @extend_schema(responses={200: OpenApiResponse(description="the latest result"),
                              404: OpenApiResponse(description="no replay of this design yet")})
    def get(self, request: Request, pk: int) -> Response:
        design = get_object_or_404(Design, pk=pk)
        job = design_replay_latest(design)
        if job is None:
            return Response({"detail": f"design #{design.pk} has no replay yet: POST here to start one"},
                            status=status.HTTP_404_NOT_FOUND)
        return Response({"job_id": job.pk, "finished_at": job.finished_at} | job.result)

    @extend_schema(request=DesignReplayIn, responses={202: OpenApiResponse(description="job_id, status_url"),
                                                      400: OpenApiResponse(description="invalid input")})
    def post(self, request: Request, pk: int) -> Response:
        design = get_object_or_404(Design, pk=pk)
        body = DesignReplayIn(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            job = design_replay_start(design=design, cluster=body.validated_data["cluster"], user=request.user)
        except ReplayError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"job_id": job.pk, "status": job.status,
                         "status_url": request.build_absolute_uri(reverse("job-json", args=[job.pk])),
                         "result_url": request.build_absolute_uri(reverse("api-replay-design", args=[design.pk]))},
                        status=status.HTTP_202_ACCEPTED)
