"""The versioned REST API root (/api/v1/): resources register their routes here."""

from __future__ import annotations

from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework import serializers, viewsets
from rest_framework.decorators import api_view
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.routers import APIRootView, DefaultRouter

from forecasts.accounting.models import Department
from planner.roles import role_of, scope_by_department


class DepartmentOut(serializers.ModelSerializer):
    class Meta:
        model = Department
        fields = ["id", "name", "code"]


class DepartmentViewSet(viewsets.ReadOnlyModelViewSet):
    """Departments the caller may see (a department viewer sees only their own)."""

    serializer_class = DepartmentOut

    def get_queryset(self):  # type: ignore[no-untyped-def]
        return scope_by_department(Department.objects.all(), self.request.user, field="id")


class MeOut(serializers.Serializer):
    username = serializers.CharField()
    role = serializers.CharField(allow_null=True)
    departments = serializers.ListField(child=serializers.CharField())


@extend_schema(responses=MeOut)
@api_view(["GET"])
def me(request: Request) -> Response:
    """Who the caller is and what they may see."""
    visible = scope_by_department(Department.objects.all(), request.user, field="id")
    return Response(
        {
            "username": request.user.get_username(),
            "role": role_of(request.user),
            "departments": [d.name for d in visible],
        }
    )


def _plain_routes(patterns: list[Any], prefix: str = "") -> list[tuple[str, str]]:
    """(path, name) of every named route under ``patterns`` that takes no argument."""
    out: list[tuple[str, str]] = []
    for p in patterns:
        route = prefix + str(p.pattern).lstrip("^").rstrip("$")
        if isinstance(p, URLResolver):
            out += _plain_routes(p.url_patterns, route)
        elif isinstance(p, URLPattern) and p.name and "<" not in route and "(?P" not in route:
            out.append((route, p.name))
    return out


class IndexRootView(APIRootView):
    """/api/v1/: every endpoint that takes no argument, as links (each router's own root knew only its own)."""

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        base = reverse("api-root")  # /api/v1/
        links: dict[str, str] = {}
        for route, name in sorted(_plain_routes(get_resolver().url_patterns)):
            here = "/" + route
            if here.startswith(base) and here != base and name != "api-root":
                links.setdefault(here[len(base):].rstrip("/"), reverse(name, request=request))
        return Response(links)


class IndexRouter(DefaultRouter):
    APIRootView = IndexRootView


router = IndexRouter()
router.register("departments", DepartmentViewSet, basename="department")


class SchemaView(SpectacularAPIView):
    """The OpenAPI schema; a refusal (401 to an anonymous caller) is JSON ``{"detail"}`` like every other API
    error, not a body labelled as a schema (a browser saved it as a YAML file)."""

    def handle_exception(self, exc: Exception) -> Response:
        response = super().handle_exception(exc)
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return response

