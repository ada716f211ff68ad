from django.http import HttpRequest

from planner.roles import role_of

# Pages that speak to a signed-in user with no role themselves (the dashboard's card, the profile's groups).
NO_ROLE_PAGES = frozenset({"dashboard", "access-profile"})


def site(request: HttpRequest) -> dict[str, object]:
    """Institution name and the visitor's role for the base template; ``no_role_notice``: a signed-in user
    with no role, on a page whose empty figures would otherwise read as nothing loaded."""
    from forecasts.accounting.models import Institution

    user = getattr(request, "user", None)
    signed_in = user is not None and user.is_authenticated
    role = role_of(user) if signed_in else None
    match = getattr(request, "resolver_match", None)
    return {
        "institution": Institution.current(),
        "role": role,
        "no_role_notice": signed_in and role is None and (match is None or match.url_name not in NO_ROLE_PAGES),
    }
