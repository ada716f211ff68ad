"""Replay pages (/replay/...): start a design's replay from its page."""

from django.urls import path

from planner.replay import views

app_name = "replay"
urlpatterns = [
    path("designs/<int:pk>/", views.design_replay, name="design"),
]
