from planner.reports.api import router

urlpatterns = router.urls
