"""Settings, read from the environment with typed helpers and safe defaults.

A fresh clone runs with no configuration at all: the embedded PostgreSQL and the
filesystem broker (planner/embedded.py) stand in for servers, local state lives in
PLANNER_DATA_DIR (default ./.data).  Production sets DATABASE_URL, CELERY_BROKER_URL,
SECRET_KEY, ALLOWED_HOSTS and the SECURE_* switches (see docker/env.example).
"""

from __future__ import annotations

import os
import secrets
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
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
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
    "forecasts",
    "planner",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "planner.web.middleware.LoginRequiredEverywhere",
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
CELERY_TASK_IGNORE_RESULT = True  # progress and results live in our own tables
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 6 * 3600)
CELERY_TASK_ACKS_LATE = True  # a killed worker's task is redelivered, and our tasks are idempotent
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")

# --- Auth, sessions, security --------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", SECURE_SSL_REDIRECT)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", SECURE_SSL_REDIRECT)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if env_bool("BEHIND_TLS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

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
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 2 * 1024**3)
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024**2
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024**2

# --- API -----------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
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
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}, "pgserver": {"level": "WARNING"}},
}
