"""The test OpenID Connect provider's process: set up its database and serve, or change a user's groups.

    python -m tests.oidc_provider.serve run PORT CLIENT_ID CLIENT_SECRET REDIRECT_URI USERS_JSON
    python -m tests.oidc_provider.serve groups USERNAME GROUP,GROUP

OP_DB (SQLite path) and OP_RSA_KEY (PEM) come from the environment.
"""

from __future__ import annotations

import json
import os
import sys


def _setup() -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.oidc_provider.settings"
    import django

    django.setup()


def set_groups(username: str, groups: list[str]) -> None:
    from django.contrib.auth.models import Group, User

    user = User.objects.get(username=username)
    user.groups.set([Group.objects.get_or_create(name=g)[0] for g in groups])


def main(argv: list[str]) -> None:
    _setup()
    from django.core.management import call_command

    if argv[0] == "groups":
        set_groups(argv[1], [g for g in argv[2].split(",") if g])
        return
    port, client_id, secret, redirect, users = argv[1:6]
    after_logout = redirect.split("/oidc/", 1)[0] + "/accounts/login/"  # the product's post-logout page
    call_command("migrate", verbosity=0)
    from django.contrib.auth.models import User
    from oauth2_provider.models import Application

    for u in json.loads(users):
        User.objects.create_user(u["username"], email=u.get("email", ""), password=u["password"])
        set_groups(u["username"], u.get("groups", []))
    Application.objects.create(name="capacity planner", client_id=client_id, client_secret=secret,
                               client_type=Application.CLIENT_CONFIDENTIAL,
                               authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
                               redirect_uris=redirect, post_logout_redirect_uris=f"{redirect} {after_logout}",
                               skip_authorization=True, algorithm=Application.RS256_ALGORITHM)
    from django.core.servers.basehttp import WSGIServer, run
    from django.core.wsgi import get_wsgi_application

    print("ready", flush=True)
    run("127.0.0.1", int(port), get_wsgi_application(), threading=True, server_cls=WSGIServer)


if __name__ == "__main__":
    main(sys.argv[1:])
