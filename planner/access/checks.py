"""`manage.py check --deploy` refuses the env.example placeholder SECRET_KEY (Django's own check
only looks at length and variety, which the placeholder passes)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security, deploy=True)
def secret_key_is_real(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    from planner.settings import secret_key_problem

    problem = secret_key_problem(settings.SECRET_KEY)
    if problem is None:
        return []
    return [Error(f"{problem}.", hint="Generate one: python -c 'import secrets; print(secrets.token_urlsafe(50))'",
                  id="planner.E001")]
