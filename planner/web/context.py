from django.http import HttpRequest

from planner.roles import role_of


def site(request: HttpRequest) -> dict[str, object]:
    """Institution name and the visitor's role for the base template."""
    from forecasts.accounting.models import Institution

    user = getattr(request, "user", None)
    return {
        "institution": Institution.current(),
        "role": role_of(user) if user is not None and user.is_authenticated else None,
    }
