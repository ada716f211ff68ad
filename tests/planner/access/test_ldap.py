"""LDAP sign-on against a real OpenLDAP (Debian's slapd, started here on a loopback port with a
test directory): the directory password signs in, directory groups become roles, and a member
removed from a group loses the role at the next login."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, override_settings

from tests.planner.access.servers import free_port, serving

SLAPD = Path("/usr/sbin/slapd")
SLAPADD = Path("/usr/sbin/slapadd")
BASE = "dc=example,dc=org"
ADMIN_DN, ADMIN_PW = f"cn=admin,{BASE}", "directory-admin-pw"
try:
    import django_auth_ldap  # noqa: F401
    import ldap  # noqa: F401

    HAVE_LDAP = True
except ImportError:
    HAVE_LDAP = False
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not SLAPD.exists() or not SLAPADD.exists(),
                                 reason="LDAP tests need Debian's slapd (apt-get install slapd ldap-utils; .ci/run "
                                        "installs them)"),
              pytest.mark.skipif(not HAVE_LDAP, reason="LDAP tests need python-ldap and django-auth-ldap "
                                                       "(pip install -r requirements-ldap.txt; .ci/run installs them)")]

CONFIG = """include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {dir}/slapd.pid
database mdb
maxsize 10485760
suffix "{base}"
rootdn "{admin}"
rootpw {password}
directory {dir}/data
"""

DIRECTORY = """dn: {base}
objectClass: dcObject
objectClass: organization
o: Example University
dc: example

dn: ou=people,{base}
objectClass: organizationalUnit
ou: people

dn: ou=groups,{base}
objectClass: organizationalUnit
ou: groups

dn: uid=lee,ou=people,{base}
objectClass: inetOrgPerson
uid: lee
cn: Lee Planner
sn: Planner
givenName: Lee
mail: lee@example.org
userPassword: lee-directory-pw

dn: uid=ann,ou=people,{base}
objectClass: inetOrgPerson
uid: ann
cn: Ann Viewer
sn: Viewer
userPassword: ann-directory-pw

dn: cn=hpc-planners,ou=groups,{base}
objectClass: groupOfNames
cn: hpc-planners
member: uid=lee,ou=people,{base}
member: cn=admin,{base}

dn: cn=genomics-pis,ou=groups,{base}
objectClass: groupOfNames
cn: genomics-pis
member: uid=ann,ou=people,{base}
member: uid=lee,ou=people,{base}
"""


@pytest.fixture(scope="module")
def slapd(tmp_path_factory: Any) -> Iterator[str]:
    workdir = tmp_path_factory.mktemp("slapd")
    (workdir / "data").mkdir()
    conf = workdir / "slapd.conf"
    conf.write_text(CONFIG.format(dir=workdir, base=BASE, admin=ADMIN_DN, password=ADMIN_PW))
    ldif = workdir / "directory.ldif"
    ldif.write_text(DIRECTORY.format(base=BASE))
    subprocess.run([str(SLAPADD), "-f", str(conf), "-l", str(ldif)], check=True, capture_output=True, timeout=60)
    uri = f"ldap://127.0.0.1:{free_port()}"
    import ldap

    def bound() -> bool:
        try:
            ldap.initialize(uri).simple_bind_s(ADMIN_DN, ADMIN_PW)
            return True
        except ldap.SERVER_DOWN:
            return False

    try:
        with serving([str(SLAPD), "-f", str(conf), "-h", uri, "-d", "0"], bound, "slapd", timeout_s=30):
            yield uri
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def ldap_on(slapd: str) -> Iterator[str]:
    import ldap
    from django_auth_ldap.config import GroupOfNamesType, LDAPSearch

    with override_settings(
        LDAP_ENABLED=True, AUTH_LDAP_SERVER_URI=slapd, AUTH_LDAP_BIND_DN=ADMIN_DN, AUTH_LDAP_BIND_PASSWORD=ADMIN_PW,
        AUTH_LDAP_USER_DN_TEMPLATE=f"uid=%(user)s,ou=people,{BASE}",
        AUTH_LDAP_USER_ATTR_MAP={"first_name": "givenName", "last_name": "sn", "email": "mail"},
        AUTH_LDAP_GROUP_SEARCH=LDAPSearch(f"ou=groups,{BASE}", ldap.SCOPE_SUBTREE, "(objectClass=groupOfNames)"),
        AUTH_LDAP_GROUP_TYPE=GroupOfNamesType(), AUTH_LDAP_CACHE_TIMEOUT=0,
        AUTHENTICATION_BACKENDS=["planner.access.throttle.ThrottleBackend",
                                 "planner.access.ldap_backend.PlannerLDAPBackend",
                                 "django.contrib.auth.backends.ModelBackend"],
    ):
        yield slapd


def _login(username: str, password: str) -> tuple[Client, Any]:
    client = Client()
    return client, client.post("/accounts/login/", {"username": username, "password": password})


def _remove_member(uri: str, group: str, uid: str) -> None:
    import ldap

    conn = ldap.initialize(uri)
    conn.simple_bind_s(ADMIN_DN, ADMIN_PW)
    member = f"uid={uid},ou=people,{BASE}".encode()
    conn.modify_s(f"cn={group},ou=groups,{BASE}", [(ldap.MOD_DELETE, "member", [member])])


def test_directory_groups_become_roles_and_a_removed_member_loses_the_role(db: Any, departments: Any,
                                                                          ldap_on: str) -> None:
    from django.contrib.auth.models import User

    from planner.access.services import mappings_import
    from planner.roles import role_of, visible_department_ids

    mappings_import(text="group,role,departments,source\nhpc-planners,planner,,ldap\n"
                         "genomics-pis,department viewer,ggs,ldap\n", filename="m.csv")
    client, response = _login("lee", "lee-directory-pw")
    assert response.status_code == 302, response.content.decode()[:500]
    lee = User.objects.get(username="lee")
    assert role_of(lee) == "planner" and lee.email == "lee@example.org" and lee.first_name == "Lee"
    assert client.get("/designs/").status_code == 200
    _, viewer = _login("ann", "ann-directory-pw")
    assert viewer.status_code == 302
    ann = User.objects.get(username="ann")
    assert role_of(ann) == "department viewer" and visible_department_ids(ann) == {departments["genomics"].pk}

    _remove_member(ldap_on, "hpc-planners", "lee")
    client, response = _login("lee", "lee-directory-pw")
    lee.refresh_from_db()
    assert role_of(lee) == "department viewer"  # what genomics-pis still gives
    assert client.get("/designs/").status_code == 403
    assert lee.sign_on.groups == ["genomics-pis"] and lee.sign_on.source == "ldap"


def test_a_wrong_directory_password_is_refused_and_counted(db: Any, ldap_on: str) -> None:
    from axes.models import AccessAttempt

    _, response = _login("lee", "not-the-password")
    assert response.status_code == 200 and "did not match" in response.content.decode()
    assert AccessAttempt.objects.filter(username="lee", failures_since_start=1).exists()


def test_a_local_account_is_not_signed_in_by_the_directory(db: Any, ldap_on: str) -> None:
    from django.contrib.auth.models import User

    User.objects.create_user("lee", password="local-pw")
    assert _login("lee", "lee-directory-pw")[1].status_code == 200  # the directory's password is not its password
    assert _login("lee", "local-pw")[1].status_code == 302  # its own still is
