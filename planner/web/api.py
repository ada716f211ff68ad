"""The versioned REST API root (/api/v1/): resources register their routes here."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter

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


router = DefaultRouter()
router.register("departments", DepartmentViewSet, basename="department")
