"""Replay API routes, included under /api/v1/ (planner/urls.py)."""

from django.urls import path

from planner.replay.api import DesignReplayView, ReplayView

urlpatterns = [
    path("replay/", ReplayView.as_view(), name="api-replay"),
    path("replay/designs/<int:pk>/", DesignReplayView.as_view(), name="api-replay-design"),
]
