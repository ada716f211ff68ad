"""A URL conf for tests/test_qa_security_error_pages.py: the product's routes plus one that fails."""

from django.http import HttpRequest, HttpResponse
from django.urls import path

from planner.urls import handler404, handler500  # noqa: F401
from planner.urls import urlpatterns as product_urlpatterns


def crash(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("SECRET_KEY=planted-in-the-error postgres://user:pw@db/x")


urlpatterns = [path("qa-crash/", crash), path("api/v1/qa-crash/", crash), *product_urlpatterns]
