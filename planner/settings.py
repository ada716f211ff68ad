"""Settings, read from the environment with typed helpers and safe defaults.

A fresh clone runs with no configuration at all: the embedded PostgreSQL and the
filesystem broker (planner/embedded.py) stand in for servers, local state lives in
PLANNER_DATA_DIR (default ./.data).  Production sets DATABASE_URL, CELERY_BROKER_URL,
SECRET_KEY, ALLOWED_HOSTS and the SECURE_* switches (see docker/env.example).
"""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value else default


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("PLANNER_DATA_DIR", str(BASE_DIR / ".data"))).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)


def _secret_key() -> str:
    """SECRET_KEY from the environment, else one generated once and kept in the data dir."""
    if key := env_str("SECRET_KEY"):
        return key
    path = DATA_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
# PRODUCTION=1 (docker/env.example) turns on the checks and defaults a public site needs.
PRODUCTION = env_bool("PRODUCTION", False)
PLACEHOLDER_SECRET_MARKERS = ("change-me", "changeme", "change_me", "placeholder", "build-only", "django-insecure",
                              "secret-key", "example")


def secret_key_problem(key: str) -> str | None:
    """Why a SECRET_KEY is unfit for production, or None."""
    if not key:
        return "SECRET_KEY is not set"
    if any(marker in key.lower() for marker in PLACEHOLDER_SECRET_MARKERS):
        return "SECRET_KEY is still the placeholder from env.example"
    if len(key) < 50 or len(set(key)) < 5:
        return "SECRET_KEY is shorter than 50 characters (or too repetitive)"
    return None


if PRODUCTION and (problem := secret_key_problem(env_str("SECRET_KEY"))):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(f"{problem}: production (PRODUCTION=1) refuses to start. Generate one with "
                               "python -c 'import secrets; print(secrets.token_urlsafe(50))' and set it in docker/env.")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
CSRF_FAILURE_VIEW = "planner.access.views.csrf_failure"  # a stale form said in words, not Django's bare 403
SITE_NAME = "Capacity Planner"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "auditlog",
    "csp",
    "forecasts",
    "planner",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "planner.audit.middleware.AuditMiddleware",  # the audit trail's actor and address (auditlog's, trusted address)
    "django.contrib.messages.middleware.MessageMiddleware",
    "planner.web.edge.RejectMalformedInput",  # NUL bytes and out-of-range numbers: 400, never 500
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "planner.web.middleware.LoginRequiredEverywhere",
    "axes.middleware.AxesMiddleware",  # last: turns a lockout into the "too many attempts" page
]

ROOT_URLCONF = "planner.urls"
WSGI_APPLICATION = "planner.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "planner.web.context.site",
            ],
        },
    },
]

# --- Database: PostgreSQL only. DATABASE_URL, else the embedded server. -------------
DATABASE_URL = env_str("DATABASE_URL")
if not DATABASE_URL:
    from planner.embedded import postgres_url

    DATABASE_URL = postgres_url(DATA_DIR)
    EMBEDDED_DATABASE = True
else:
    EMBEDDED_DATABASE = False
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60))}
if not DATABASES["default"]["HOST"] and "host" in DATABASES["default"]["OPTIONS"]:
    # a unix-socket URL (?host=/dir): HOST is where dbshell and pg tools look for it
    DATABASES["default"]["HOST"] = DATABASES["default"]["OPTIONS"].pop("host")
# PostgreSQL's JIT compiles (LLVM) every statement whose estimated cost passes jit_above_cost, on each execution.
# The ingest's batch statement (insert, rollups, attribution in one) passes it: 2.5 s of compiling for a batch of 40
# jobs that then runs in 20 ms, and a 500,000-job ingest took 27.9 s instead of 12.0 s with it off
# (docs/performance.md, "PostgreSQL's JIT"). Every connection turns it off (planner.apps, after connecting: a
# startup option would be refused by connection poolers such as PgBouncer); DB_JIT=1 keeps the server's setting.
DB_JIT = env_bool("DB_JIT", False)
if not DATABASES["default"]["ENGINE"].endswith("postgresql"):
    raise RuntimeError("DATABASE_URL must point at PostgreSQL (postgres://...): no other database works")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Celery: CELERY_BROKER_URL, else the embedded filesystem broker. ----------------
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
if not CELERY_BROKER_URL:
    from planner.embedded import filesystem_broker_options

    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = filesystem_broker_options(DATA_DIR)
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {}
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "celery")  # where tasks, beat's included, are sent
CELERY_TASK_IGNORE_RESULT = True  # progress and results live in our own tables
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 6 * 3600)
CELERY_TASK_ACKS_LATE = True  # a killed worker's task is redelivered, and our tasks are idempotent
# ... also when the worker child is killed by a signal (SIGKILL, OOM): without this Celery
# acknowledges the message of a child that died.  JobTask (planner/jobs/runtime.py) caps the
# starts of one job, so a task that kills its worker every time does not loop.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# How long the worker waits for a dead child's last result before it requeues that child's task
# (Celery's worker_lost_wait, 10 s); the recovery tests shorten it.
CELERY_WORKER_LOST_WAIT = env_int("CELERY_WORKER_LOST_WAIT", 10)
# Lost workers: a running job beats every JOBS_HEARTBEAT_S; the reaper (beat, every
# JOBS_REAP_EVERY_S) requeues a job silent for JOBS_STALE_S, or fails it after JOBS_MAX_ATTEMPTS starts.
JOBS_HEARTBEAT_S = env_int("JOBS_HEARTBEAT_S", 10)
JOBS_STALE_S = env_int("JOBS_STALE_S", 60)
JOBS_REAP_EVERY_S = env_int("JOBS_REAP_EVERY_S", 30)
JOBS_MAX_ATTEMPTS = env_int("JOBS_MAX_ATTEMPTS", 3)
# A job queued (or requeued) this long that no worker took and whose message the broker no longer
# holds lost its message: the reaper sends it again (planner/jobs/reaper.py).
JOBS_QUEUED_STALE_S = env_int("JOBS_QUEUED_STALE_S", 300)
CELERY_BEAT_SCHEDULE = {
    "reap-lost-jobs": {"task": "planner.jobs.reap_lost_jobs", "schedule": float(JOBS_REAP_EVERY_S)},
}
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")

# --- Caches: rollup reads keyed by the rollups' stamp (forecasts/usage/cache.py) -------
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "rollups": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "rollups",
                "OPTIONS": {"MAX_ENTRIES": 5000}},
}
ROLLUP_STAMP_SECONDS = float(env_str("ROLLUP_STAMP_SECONDS", "1"))

# --- Auth, sessions, security --------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

# Sign-on: local accounts always (the demo, break-glass admins); OIDC and LDAP when switched on.
# Roles and departments come from group mappings (planner/access), applied at every sign-on.
OIDC_ENABLED = env_bool("OIDC_ENABLED", False)
OIDC_RP_CLIENT_ID = env_str("OIDC_RP_CLIENT_ID")
OIDC_RP_CLIENT_SECRET = env_str("OIDC_RP_CLIENT_SECRET")
OIDC_OP_AUTHORIZATION_ENDPOINT = env_str("OIDC_OP_AUTHORIZATION_ENDPOINT")
OIDC_OP_TOKEN_ENDPOINT = env_str("OIDC_OP_TOKEN_ENDPOINT")
OIDC_OP_USER_ENDPOINT = env_str("OIDC_OP_USER_ENDPOINT")
OIDC_OP_JWKS_ENDPOINT = env_str("OIDC_OP_JWKS_ENDPOINT") or None
OIDC_OP_LOGOUT_ENDPOINT = env_str("OIDC_OP_LOGOUT_ENDPOINT")
OIDC_RP_SIGN_ALGO = env_str("OIDC_RP_SIGN_ALGO", "RS256")
OIDC_RP_SCOPES = env_str("OIDC_RP_SCOPES", "openid email profile groups")
OIDC_GROUPS_CLAIM = env_str("OIDC_GROUPS_CLAIM", "groups")
OIDC_USERNAME_CLAIM = env_str("OIDC_USERNAME_CLAIM", "preferred_username")
OIDC_LOGIN_LABEL = env_str("OIDC_LOGIN_LABEL", "Sign in with your institution")
OIDC_STORE_ID_TOKEN = True  # the id_token_hint for the provider's logout
OIDC_OP_LOGOUT_URL_METHOD = "planner.access.oidc.provider_logout_url"
# where the provider sends the browser after its logout; unset: this site's login page; "": none
OIDC_POST_LOGOUT_REDIRECT_URI = os.environ.get("OIDC_POST_LOGOUT_REDIRECT_URI")
OIDC_USE_PKCE = True
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"

LDAP_ENABLED = bool(env_str("LDAP_SERVER_URI"))
if LDAP_ENABLED:
    import ldap
    from django_auth_ldap import config as ldap_config

    AUTH_LDAP_SERVER_URI = env_str("LDAP_SERVER_URI")
    AUTH_LDAP_BIND_DN = env_str("LDAP_BIND_DN")
    AUTH_LDAP_BIND_PASSWORD = env_str("LDAP_BIND_PASSWORD")
    AUTH_LDAP_START_TLS = env_bool("LDAP_START_TLS", False)
    if env_str("LDAP_USER_DN_TEMPLATE"):
        AUTH_LDAP_USER_DN_TEMPLATE = env_str("LDAP_USER_DN_TEMPLATE")
    else:
        AUTH_LDAP_USER_SEARCH = ldap_config.LDAPSearch(env_str("LDAP_USER_SEARCH_BASE"), ldap.SCOPE_SUBTREE,
                                                       env_str("LDAP_USER_FILTER", "(uid=%(user)s)"))
    AUTH_LDAP_USER_ATTR_MAP = {"first_name": "givenName", "last_name": "sn", "email": "mail"}
    AUTH_LDAP_GROUP_SEARCH = ldap_config.LDAPSearch(env_str("LDAP_GROUP_SEARCH_BASE"), ldap.SCOPE_SUBTREE,
                                                    env_str("LDAP_GROUP_FILTER", "(objectClass=*)"))
    AUTH_LDAP_GROUP_TYPE = {
        "groupOfNames": ldap_config.GroupOfNamesType,
        "groupOfUniqueNames": ldap_config.GroupOfUniqueNamesType,
        "posixGroup": ldap_config.PosixGroupType,
    }[env_str("LDAP_GROUP_TYPE", "groupOfNames")]()
    AUTH_LDAP_ALWAYS_UPDATE_USER = True
    AUTH_LDAP_CACHE_TIMEOUT = 0  # groups are read at every login: a removed member loses the role at once

# SAML 2.0 (djangosaml2 + pysaml2; needs Debian's xmlsec1): the service provider's configuration is
# built per request by planner.access.saml.config_loader from these; routes under /accounts/login/saml2/.
SAML_ENABLED = env_bool("SAML_ENABLED", False)
SAML_IDP_METADATA_URL = env_str("SAML_IDP_METADATA_URL")  # or a file: SAML_IDP_METADATA_FILE
SAML_IDP_METADATA_FILE = env_str("SAML_IDP_METADATA_FILE")
SAML_IDP_CERT_FILE = env_str("SAML_IDP_CERT_FILE")  # optional: check the fetched metadata's signature
SAML_SP_BASE_URL = env_str("SAML_SP_BASE_URL")  # https://planner.example.org; default: the request's host
SAML_SP_ENTITY_ID = env_str("SAML_SP_ENTITY_ID")  # default: the metadata URL
SAML_SP_KEY_FILE = env_str("SAML_SP_KEY_FILE")  # signs requests and decrypts assertions
SAML_SP_CERT_FILE = env_str("SAML_SP_CERT_FILE")
SAML_WANT_RESPONSE_SIGNED = env_bool("SAML_WANT_RESPONSE_SIGNED", False)  # assertions must be signed always
SAML_USERNAME_ATTRIBUTE = env_str("SAML_USERNAME_ATTRIBUTE", "uid")
SAML_EMAIL_ATTRIBUTE = env_str("SAML_EMAIL_ATTRIBUTE", "mail")
SAML_GROUPS_ATTRIBUTE = env_str("SAML_GROUPS_ATTRIBUTE", "isMemberOf")  # eduPerson; as the IdP names it
SAML_LOGIN_LABEL = env_str("SAML_LOGIN_LABEL", "Sign in with your institution (SAML)")
SAML_METADATA_REFRESH = env_int("SAML_METADATA_REFRESH", 3600)  # seconds a loaded IdP metadata is kept
SAML_XMLSEC_BINARY = env_str("SAML_XMLSEC_BINARY")  # default: xmlsec1 on PATH
SAML_CONFIG_LOADER = "planner.access.saml.config_loader"
SAML_ACS_FAILURE_RESPONSE_FUNCTION = "planner.access.saml.acs_failure"
SAML_DEFAULT_BINDING = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect"  # no auto-submitting form (CSP)
SAML_LOGOUT_REQUEST_PREFERRED_BINDING = None  # the config's preferred_binding picks one the IdP supports
SAML_CSP_HANDLER = ""  # form-action stays 'self': the IdP is reached by redirects
SAML_CREATE_UNKNOWN_USER = True
INSTALLED_APPS.append("djangosaml2")  # its error templates
import logging as _logging  # noqa: E402

_logging.getLogger("xmlschema").setLevel(_logging.WARNING)  # pysaml2's schema loader: "already loaded" at INFO

AUTHENTICATION_BACKENDS = [
    "planner.access.throttle.ThrottleBackend",  # first: refuses locked-out accounts and addresses
    *(["planner.access.backends.OIDCBackend"] if OIDC_ENABLED else []),
    *(["planner.access.ldap_backend.PlannerLDAPBackend"] if LDAP_ENABLED else []),
    *(["planner.access.saml_backend.PlannerSaml2Backend"] if SAML_ENABLED else []),
    "django.contrib.auth.backends.ModelBackend",
]

# Throttling: LOGIN_FAILURE_LIMIT failures lock the account and, separately, the address for
# LOGIN_LOCKOUT_MINUTES; the page says so (templates/registration/locked_out.html).
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_LOCKOUT_CALLABLE = "planner.access.throttle.lockout_response"  # says whether the account or the address
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "planner.access.throttle.ThrottleHandler"  # a sign-in clears only its own user's failures
AXES_CLIENT_IP_CALLABLE = "planner.access.throttle.client_ip"
AXES_USERNAME_CALLABLE = "planner.access.throttle.client_username"  # cut to the column: no overflow
AXES_VERBOSE = False

SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", PRODUCTION)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", SECURE_SSL_REDIRECT or PRODUCTION)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", SECURE_SSL_REDIRECT or PRODUCTION)
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 12 * 3600)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000 if PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
BEHIND_TLS_PROXY = env_bool("BEHIND_TLS_PROXY", False)
if BEHIND_TLS_PROXY:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Content-Security-Policy: scripts only from this site (no inline script, no eval); Plotly
# sets inline styles, so styles allow them; charts export PNGs through data:/blob: URLs.
_CSP_FORM_ACTION = ["'self'"]
if OIDC_ENABLED and OIDC_OP_LOGOUT_ENDPOINT:
    from urllib.parse import urlsplit as _urlsplit

    _op = _urlsplit(OIDC_OP_LOGOUT_ENDPOINT)
    _CSP_FORM_ACTION.append(f"{_op.scheme}://{_op.netloc}")  # logging out redirects to the provider
if SAML_ENABLED and SAML_IDP_METADATA_URL:  # single logout redirects to the IdP (its metadata's host)
    from urllib.parse import urlsplit as _urlsplit

    _idp = _urlsplit(SAML_IDP_METADATA_URL)
    _CSP_FORM_ACTION.append(f"{_idp.scheme}://{_idp.netloc}")
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": _CSP_FORM_ACTION,
        **({"report-uri": [env_str("CSP_REPORT_URI")]} if env_str("CSP_REPORT_URI") else {}),
    },
}

# --- Files ---------------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = DATA_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns when it is missing


def _plotly_bundle_dir() -> Path:
    """The directory holding plotly.min.js inside the installed plotly package (no CDN)."""
    import plotly

    return Path(plotly.__file__).resolve().parent / "package_data"


STATICFILES_DIRS = [BASE_DIR / "static", ("plotly", _plotly_bundle_dir())]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # Production (docker) runs collectstatic and sets STATIC_MANIFEST=1 for hashed names.
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if env_bool("STATIC_MANIFEST", False)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not env_bool("STATIC_MANIFEST", False)
MEDIA_ROOT = DATA_DIR / "media"
UPLOAD_DIR = DATA_DIR / "uploads"
REPORTS_DIR = DATA_DIR / "reports"  # a grant report's files under <id>/ (tests use a temporary folder)
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 2 * 1024**3)
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024**2
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024**2

# --- API -----------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "planner.access.tokens.ApiTokenAuthentication",  # personal tokens: Authorization: Bearer cpt_...
        "rest_framework.authentication.SessionAuthentication",
        # DRF's unscoped, non-expiring tokens (admin-created): API_LEGACY_TOKENS=0 turns them off
        *(["rest_framework.authentication.TokenAuthentication"] if env_bool("API_LEGACY_TOKENS", True) else []),
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.LimitOffsetPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Capacity Planner API",
    "DESCRIPTION": "Usage, forecasts, hardware designs, reports and chargeback for research computing.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # the schema and its docs page are for signed-in users and tokens, as every other route (drf-spectacular
    # serves them to anyone by default, and /api/ is left to DRF by the sign-in middleware)
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # an external series' frequency and aggregate appear in several components (the series, the series just
    # uploaded with its gap lines, the upload form): one named enum each
    # every operation's error answers (400, 401, 403, 404, ...), which drf-spectacular leaves out
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "planner.web.schema.add_error_answers"],
    "ENUM_NAME_OVERRIDES": {
        "ExternalSeriesFrequencyEnum": "forecasts.demand.models.ExternalSeries.Frequency",
        "ExternalSeriesAggregateEnum": "forecasts.demand.models.ExternalSeries.Aggregate",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}, "pgserver": {"level": "WARNING"}},
}
