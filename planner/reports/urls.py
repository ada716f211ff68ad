"""Report pages (/reports/...)."""

from django.urls import path

from planner.reports import views as v

app_name = "reports"
urlpatterns = [
    path("", v.report_list, name="list"),
    path("new/", v.report_new, name="new"),
    path("<int:pk>/", v.report_detail, name="detail"),
    path("<int:pk>/progress/", v.report_progress, name="progress"),
    path("<int:pk>/edit/", v.report_edit, name="edit"),
    path("<int:pk>/regenerate/", v.report_regen, name="regenerate"),
    path("<int:pk>/download/<str:fmt>/", v.report_download, name="download"),
]
