"""Settings, all read from the environment (django-environ).

Unset DATABASE_URL means the embedded default: a SQLite file under var/.
Unset REDIS_URL means the embedded broker: Celery's filesystem transport under
var/broker/ with results in the database, so one machine with nothing but
Python runs the whole app (see the README for what that trades away).
"""

import ipaddress
import os
import sys
from pathlib import Path

import django_stubs_ext
import environ
from kombu import Queue

# ModelAdmin and Paginator are generic in django-stubs; this makes ModelAdmin[Model]
# and Paginator[T] valid at runtime too.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent
# The pages' templates and static files: beside the code in a checkout, under
# <prefix>/share/preemptlab when installed from the wheel (pyproject's data-files).
SHARED_DIR = (
    BASE_DIR if (BASE_DIR / "templates").is_dir() else Path(sys.prefix) / "share" / "preemptlab"
)
VAR_DIR = Path(environ.Env().str("PREEMPTLAB_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env(
    DEBUG=(bool, False),
    ALLOWED_HOSTS=(list, ["localhost", "127.0.0.1", "[::1]"]),
    CSRF_TRUSTED_ORIGINS=(list, []),
    MAX_UPLOAD_MB=(int, 256),
    SECURE_SSL_REDIRECT=(bool, False),
)
env_file = BASE_DIR / ".env"
if env_file.exists():
    environ.Env.read_env(env_file)

DEBUG = env("DEBUG")
_INSECURE_DEV_KEY = "django-insecure-preemptlab-development-only"
# `make run` serves without DEBUG: it generates a key once and keeps it in this
# file (scripts/run.sh), so sessions survive restarts and manage.py commands
# run in any shell without DEBUG=1. SECRET_KEY in the environment wins.
SECRET_KEY_FILE = VAR_DIR / "secret_key"


def _secret_key() -> str:
    key = env.str("SECRET_KEY", default="")
    if not key and SECRET_KEY_FILE.is_file():
        key = SECRET_KEY_FILE.read_text().strip()
    return key or (_INSECURE_DEV_KEY if DEBUG else "")


SECRET_KEY = _secret_key()
if not DEBUG and (not SECRET_KEY or SECRET_KEY == _INSECURE_DEV_KEY):
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(
        "SECRET_KEY must be set in the environment when DEBUG is off "
        f"(or kept in {SECRET_KEY_FILE}, which `make run` creates; "
        "the development default is refused)."
    )

ALLOWED_HOSTS = env("ALLOWED_HOSTS")
# In a pod: its own address (the downward API's status.podIP), which Prometheus scrapes.
_POD_IP = env.str("POD_IP", default="")
if _POD_IP:
    # An IPv6 address is matched in brackets, as a Host header writes it.
    ALLOWED_HOSTS.append(f"[{_POD_IP}]" if ":" in _POD_IP else _POD_IP)
CSRF_TRUSTED_ORIGINS = env("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "django_celery_results",
    "django_celery_beat",
    "operations",
    "clusters",
    "scheduling",
    "planning",
    "advice",
    "connected",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "operations.middleware.SecurityHeadersMiddleware",
    "operations.middleware.DependencyFaultMiddleware",
    "operations.middleware.ApiJsonErrorsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "operations.middleware.SubmissionBodyMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "operations.middleware.LoginRequiredMiddleware",
    "operations.throttling.LoginThrottleMiddleware",
    "operations.throttling.BusyMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [SHARED_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"

# Database: DATABASE_URL, or the embedded SQLite file.
# Only this user may enter var/ (the database file, the secret key, the broker's files),
# whatever mode the files in it were created with.
VAR_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)
if VAR_DIR.stat().st_uid == os.getuid():
    VAR_DIR.chmod(0o700)
DATABASE_URL = env.str("DATABASE_URL", default="") or f"sqlite:///{VAR_DIR / 'preemptlab.sqlite3'}"
DATABASES = {"default": env.db_url_config(DATABASE_URL)}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and a busy timeout let the web process and the worker write to one
    # file without "database is locked"; IMMEDIATE avoids deadlocking upgrades.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    DATABASES["default"].setdefault("CONN_MAX_AGE", 60)
# Lets concurrent test runs on one PostgreSQL server use test databases of their own.
if env.str("TEST_DB_NAME", default=""):
    DATABASES["default"]["TEST"] = {"NAME": env.str("TEST_DB_NAME")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [SHARED_DIR / "static"]
# Collected static files: under the data folder, or where an image collected them at build
# time (PREEMPTLAB_STATIC_ROOT), so that the data folder may be an empty volume.
STATIC_ROOT = Path(env.str("PREEMPTLAB_STATIC_ROOT", default=str(VAR_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
MEDIA_ROOT = VAR_DIR / "media"
# Files Django writes under var/ (media, collected static files): this user's only.
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700
STATIC_ROOT.mkdir(parents=True, exist_ok=True)

# Uploads: MAX_UPLOAD_MB bounds one snapshot upload (all its files together).
MAX_UPLOAD_BYTES = env("MAX_UPLOAD_MB") * 1024 * 1024
# What one file may hold once read: a gzipped dump expanded, or YAML aliases expanded.
# 2 GiB: room for the largest dumps measured (the ingest benchmark's 150,000 pods are
# 1,338 MiB of kubectl JSON), and the most an ingest holds of any one file's bytes.
MAX_UNCOMPRESSED_BYTES = env.int("MAX_UNCOMPRESSED_MB", default=2048) * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_UPLOAD_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = 8 * 1024 * 1024
DATA_UPLOAD_MAX_NUMBER_FILES = 100

# Celery: Redis when REDIS_URL is set, otherwise the embedded filesystem broker.
REDIS_URL = env.str("REDIS_URL", default="")
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=15 * 60)
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=14 * 60)
# A task that outlives the visibility timeout is handed to another worker:
# keep it above the hard time limit so long ingests are not run twice.
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
    "visibility_timeout": CELERY_TASK_TIME_LIMIT + 300,
}
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
else:
    _broker_dir = VAR_DIR / "broker"
    for _sub in ("out", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS |= {
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "data_folder_processed": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
    CELERY_RESULT_BACKEND = "django-db"
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_QUEUE", default="preemptlab")
# Cluster reads and alert deliveries on queues of their own (config/queues.py): in the
# cluster, only the reader's worker holds the token, only the alerts' worker reaches
# the receivers. A worker without -Q consumes every queue named here.
PREEMPTLAB_CLUSTER_READS_QUEUE = env.str("PREEMPTLAB_CLUSTER_READS_QUEUE", default="cluster-reads")
PREEMPTLAB_ALERTS_QUEUE = env.str("PREEMPTLAB_ALERTS_QUEUE", default="alerts")
CELERY_TASK_QUEUES = [
    Queue(name)
    for name in dict.fromkeys(
        (CELERY_TASK_DEFAULT_QUEUE, PREEMPTLAB_CLUSTER_READS_QUEUE, PREEMPTLAB_ALERTS_QUEUE)
    )
]
CELERY_TASK_ROUTES = ["config.queues.route_task"]
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_RESULT_EXTENDED = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A POST while the broker is down answers 503 within about a second instead of
# hanging on Celery's default publish retries.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 2,
    "interval_start": 0,
    "interval_step": 0.25,
    "interval_max": 0.5,
}
CELERY_BROKER_CONNECTION_TIMEOUT = 3

# Connected clusters (connected/): the kubectl the workers read them with and its
# kubeconfig ("": kubectl's own default). No credential is kept in the database: a
# cluster names a context of this kubeconfig, or in-cluster (the pod's ServiceAccount).
# A read (each kubectl call) gives up after CONNECTED_READ_TIMEOUT seconds.
CONNECTED_KUBECTL = env.str("CONNECTED_KUBECTL", default="kubectl")
CONNECTED_KUBECONFIG = env.str("CONNECTED_KUBECONFIG", default="")
CONNECTED_READ_TIMEOUT = env.int("CONNECTED_READ_TIMEOUT", default=120)
# kubectl is stopped past this resident memory (and past MAX_UPLOAD_MB received); 0: twice
# MAX_UPLOAD_MB and 128 MB more (kubectl holds about three times what it has received).
CONNECTED_READ_MAX_MEMORY_MB = env.int("CONNECTED_READ_MAX_MEMORY_MB", default=0)
# In a pod: the ServiceAccount folder (token, ca.crt, namespace) a cluster whose source is
# in-cluster is read with, beside KUBERNETES_SERVICE_HOST/PORT (connected/in_cluster.py).
CONNECTED_SERVICEACCOUNT_DIR = env.str(
    "CONNECTED_SERVICEACCOUNT_DIR", default="/var/run/secrets/kubernetes.io/serviceaccount"
)
# The schedules of connected clusters live in the database (django-celery-beat).
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"

# Durable work (operations/leases.py, operations/reconciler.py): a task renews its lease
# every quarter of PREEMPTLAB_LEASE_SECONDS; each worker reconciles the database
# with the broker every PREEMPTLAB_RECONCILE_SECONDS and queues again what is
# queued longer than PREEMPTLAB_QUEUED_GRACE_SECONDS without a message, or
# running with an expired lease. Worst case after a whole worker dies:
# lease + reconcile interval (25 s by default).
PREEMPTLAB_LEASE_SECONDS = env.int("PREEMPTLAB_LEASE_SECONDS", default=20)
PREEMPTLAB_RECONCILE_SECONDS = env.int("PREEMPTLAB_RECONCILE_SECONDS", default=5)
PREEMPTLAB_QUEUED_GRACE_SECONDS = env.int("PREEMPTLAB_QUEUED_GRACE_SECONDS", default=15)
PREEMPTLAB_RECONCILER = env.bool("PREEMPTLAB_RECONCILER", default=True)
# How often a task that lost the database tries again (2, 4, 8, 16, 30, 30 ... s apart).
PREEMPTLAB_DATABASE_RETRIES = env.int("PREEMPTLAB_DATABASE_RETRIES", default=12)
# After this long, a snapshot ingested inside a request that is still "ingesting"
# lost its web process mid-ingest: the reconciler marks it failed.
PREEMPTLAB_ORPHAN_INGEST_SECONDS = env.int("PREEMPTLAB_ORPHAN_INGEST_SECONDS", default=600)
# How many pods one workload what-if may create (every pod is at least one scheduling
# cycle on a worker; the engine's benchmark runs 1,000 small replicas in seconds).
PREEMPTLAB_WORKLOAD_MAX_REPLICAS = env.int("PREEMPTLAB_WORKLOAD_MAX_REPLICAS", default=1000)
# The most one what-if may submit, in bytes: the analyses API's request body, a pasted or
# uploaded manifest, the command line's pod file. A workload and its classes are a few
# KiB; one object's annotations may hold 256 KiB, as the API server allows.
PREEMPTLAB_SUBMISSION_MAX_BYTES = env.int("PREEMPTLAB_SUBMISSION_MAX_BYTES", default=1024 * 1024)
# The most a workload's pods may hold once its controllers are expanded, in bytes: 1,000
# replicas of a pod template of 16 KiB (a real one is a few KiB). Its template is
# copied into every replica, so its annotations count once per replica.
PREEMPTLAB_WORKLOAD_MAX_BYTES = env.int("PREEMPTLAB_WORKLOAD_MAX_BYTES", default=16 * 1024 * 1024)

# Throttling (operations.throttling): failed logins in a sliding window, per account (from
# anywhere) and per address and account; API calls per user (token or session). 429 with
# Retry-After beyond them. Per address and account below per account: one address alone
# cannot lock an account for everyone, and never locks out the accounts it did not try.
PREEMPTLAB_LOGIN_WINDOW_SECONDS = env.int("PREEMPTLAB_LOGIN_WINDOW_SECONDS", default=900)
PREEMPTLAB_LOGIN_FAILURES_PER_ACCOUNT = env.int("PREEMPTLAB_LOGIN_FAILURES_PER_ACCOUNT", default=10)
PREEMPTLAB_LOGIN_FAILURES_PER_ADDRESS = env.int("PREEMPTLAB_LOGIN_FAILURES_PER_ADDRESS", default=5)
# The reverse proxy's own addresses (IPs or CIDR networks, comma separated): only a request
# from one of them has its X-Forwarded-For believed (the client address the login throttle
# counts), and gunicorn.conf.py gives the same list to gunicorn's forwarded_allow_ips.
# Empty (the default): nobody is believed, every address is the connection's own.
PREEMPTLAB_PROXY_ADDRESSES = env.list("PREEMPTLAB_PROXY_ADDRESSES", default=[])
PREEMPTLAB_API_RATE = env.str("PREEMPTLAB_API_RATE", default="1200/min")
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    # Shared by every web process when there is Redis; the embedded default runs one.
    "throttle": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "preemptlab-throttle",
        }
        if REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "throttle"}
    ),
}

# What one analysis may take (scheduling.running.budgets): wall-clock seconds and scheduling
# cycles of a workload's run, the size of a stored result; and how many analyses one
# user may have queued or running at once (the fairness bound: 429 beyond it).
PREEMPTLAB_ANALYSIS_SECONDS = env.float("PREEMPTLAB_ANALYSIS_SECONDS", default=120.0)
PREEMPTLAB_ANALYSIS_MAX_CYCLES = env.int("PREEMPTLAB_ANALYSIS_MAX_CYCLES", default=20000)
PREEMPTLAB_MAX_RESULT_BYTES = env.int("PREEMPTLAB_MAX_RESULT_BYTES", default=64 * 1024 * 1024)
PREEMPTLAB_UNFINISHED_PER_USER = env.int("PREEMPTLAB_UNFINISHED_PER_USER", default=4)

# Connected clusters' alerts and /metrics. Classes marked critical (connected/alert_rules.py:
# the default preemption rule's floor): every *-critical class, and these.
PREEMPTLAB_CRITICAL_CLASSES = env.list("PREEMPTLAB_CRITICAL_CLASSES", default=[])
PREEMPTLAB_ALERT_RETRY_SECONDS = env.int("PREEMPTLAB_ALERT_RETRY_SECONDS", default=30)
# Webhook receivers are outbound only (connected/webhooks.py): loopback, link-local and
# unspecified addresses never, private networks only inside one of these CIDRs.
PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS = env.list("PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS", default=[])
for _network in PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS:
    from django.core.exceptions import ImproperlyConfigured

    try:
        ipaddress.ip_network(_network.strip(), strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"PREEMPTLAB_WEBHOOK_ALLOWED_NETWORKS: {_network!r} is not a CIDR network"
        ) from None
# "Take a snapshot now": at most one read of a cluster this often (connected/take_now.py).
PREEMPTLAB_TAKE_NOW_SECONDS = env.int("PREEMPTLAB_TAKE_NOW_SECONDS", default=60)
# Retention keeps a snapshot holding an analysis, advice, Explain verdict or live share
# link younger than this many days (connected/services.py), and every pinned one.
PREEMPTLAB_RETENTION_IN_USE_DAYS = env.int("PREEMPTLAB_RETENTION_IN_USE_DAYS", default=30)
# Where people open the app: alerts link to it (an absolute URL a chat tool can open).
PREEMPTLAB_BASE_URL = env.str("PREEMPTLAB_BASE_URL", default="http://localhost:8000")
# /metrics answers a request bearing this token (none set: 401), or anyone when open.
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
METRICS_OPEN = env.bool("METRICS_OPEN", default=False)
# Installed into django-celery-beat's database schedules when beat starts.
CELERY_BEAT_SCHEDULE = {
    "connected: unreadable clusters": {
        "task": "connected.unreadable_check",
        # A rule may say "unreadable>=2m": looked at every minute.
        "schedule": 60.0,
    },
}

REST_FRAMEWORK = {
    "DEFAULT_THROTTLE_CLASSES": ["operations.throttling.ApiRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"api": PREEMPTLAB_API_RATE},
    # Token first: DRF answers an unauthenticated call with the first class's
    # WWW-Authenticate challenge, so 401 (as the schema and README say), not 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "operations.parsers.JSONBodyParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "preemptlab API",
    "DESCRIPTION": "What-if analysis of Kubernetes pod priority and preemption.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "operations.schema.error_responses",
    ],
    # Swagger UI from the pinned sidecar package's static files: the docs render
    # offline and in air-gapped networks (no CDN, no @latest). No Redoc: its
    # bundle fetches a logo from a CDN.
    # Two fields are named "kind" (an analysis' and an advice item's): each enum keeps a
    # name of its own, rather than one suffixed with a hash that moves as fields are added.
    "ENUM_NAME_OVERRIDES": {
        "KindEnum": "scheduling.constants.AnalysisKind",
        "AdviceKindEnum": "scheduling.engine.advice.result.AdviceKind",
        "AnalysisStatusEnum": "scheduling.constants.AnalysisStatus",
    },
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # Swagger UI would otherwise send the schema to validator.swagger.io.
    # The models section left out: the page draws the list of paths, not every schema
    # of the API at once (each operation still shows its own).
    "SWAGGER_UI_SETTINGS": {
        "deepLinking": True,
        "validatorUrl": None,
        "defaultModelsExpandDepth": -1,
    },
}

# Safe production settings whenever DEBUG is off.
if not DEBUG:
    SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=True)
    CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=True)
    SECURE_SSL_REDIRECT = env("SECURE_SSL_REDIRECT")
    # Only a proxy in front may say the request came over HTTPS: without one, a client
    # could send X-Forwarded-Proto itself. docker-compose's stack sets it; make run not.
    if env.bool("PREEMPTLAB_BEHIND_PROXY", default=False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
    SECURE_CONTENT_TYPE_NOSNIFF = True
    X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True

# Share links' tokens never reach a log line (operations.logs.RedactShareTokens): on the
# handlers, and on Django's request loggers, whose lines Django's own handlers also write.
_REDACT = {"redact": {"()": "operations.logs.RedactShareTokens"}}
_REDACTED_LOGGERS = {
    name: {"filters": ["redact"]} for name in ("django.request", "django.server", "django.security")
}
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": _REDACT,
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["redact"]}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": _REDACTED_LOGGERS,
}

# --- Sign-in with OpenID Connect, readiness, structured logs -------------------------------
# OpenID Connect (accounts/): on when OIDC_ISSUER (or OIDC_AUTHORIZATION_ENDPOINT) and
# OIDC_CLIENT_ID are set. The endpoints come from <issuer>/.well-known/openid-configuration,
# fetched at the first sign-in (OIDC_TIMEOUT seconds at most), unless given one by one.
OIDC_ISSUER = env.str("OIDC_ISSUER", default="").rstrip("/")
OIDC_RP_CLIENT_ID = env.str("OIDC_CLIENT_ID", default="")
OIDC_RP_CLIENT_SECRET = env.str("OIDC_CLIENT_SECRET", default="")
OIDC_OP_AUTHORIZATION_ENDPOINT = env.str("OIDC_AUTHORIZATION_ENDPOINT", default="")
OIDC_OP_TOKEN_ENDPOINT = env.str("OIDC_TOKEN_ENDPOINT", default="")
OIDC_OP_USER_ENDPOINT = env.str("OIDC_USERINFO_ENDPOINT", default="")
OIDC_OP_JWKS_ENDPOINT = env.str("OIDC_JWKS_ENDPOINT", default="")
OIDC_RP_SIGN_ALGO = env.str("OIDC_SIGN_ALGO", default="RS256")
OIDC_RP_SCOPES = env.str("OIDC_SCOPES", default="openid email profile groups")
OIDC_GROUPS_CLAIM = env.str("OIDC_GROUPS_CLAIM", default="groups")
# A claimed group becomes a team only when its name matches this (others are left out).
OIDC_GROUP_PATTERN = env.str("OIDC_GROUP_PATTERN", default=r"[A-Za-z0-9][A-Za-z0-9 ._:@/+-]{0,149}")
OIDC_PROVIDER_NAME = env.str("OIDC_PROVIDER_NAME", default="single sign-on")
OIDC_TIMEOUT = env.float("OIDC_TIMEOUT", default=5.0)
OIDC_ENABLED = bool((OIDC_ISSUER or OIDC_OP_AUTHORIZATION_ENDPOINT) and OIDC_RP_CLIENT_ID)
OIDC_USE_PKCE = True
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/"
OIDC_AUTHENTICATE_CLASS = "accounts.oidc.SignInView"
OIDC_CALLBACK_CLASS = "accounts.oidc.CallbackView"
INSTALLED_APPS += ["accounts"]
AUTHENTICATION_BACKENDS = ["django.contrib.auth.backends.ModelBackend"]
if OIDC_ENABLED:
    AUTHENTICATION_BACKENDS += ["accounts.oidc.Backend"]

# /metrics and /readyz?verbose: a worker is seen when it beat within PREEMPTLAB_WORKER_SEEN_SECONDS; each
# worker beats every PREEMPTLAB_HEARTBEAT_SECONDS (operations/heartbeat.py).
PREEMPTLAB_HEARTBEAT_SECONDS = env.int("PREEMPTLAB_HEARTBEAT_SECONDS", default=15)
PREEMPTLAB_WORKER_SEEN_SECONDS = env.int("PREEMPTLAB_WORKER_SEEN_SECONDS", default=60)
# The file the heartbeat touches for the worker's liveness probe (operations/alive.py).
PREEMPTLAB_HEARTBEAT_FILE = env.str(
    "PREEMPTLAB_HEARTBEAT_FILE", default="/tmp/preemptlab-worker-alive"
)

# LOG_FORMAT=json: every line one JSON object (operations/logs.py), for Django, Celery
# (which then leaves the root logger to these settings) and gunicorn (gunicorn.conf.py).
LOG_FORMAT = env.str("LOG_FORMAT", default="text")
MIDDLEWARE.insert(0, "operations.logs.RequestContextMiddleware")
if LOG_FORMAT == "json":
    LOGGING = {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "operations.logs.ContextFilter"}, **_REDACT},
        "formatters": {"json": {"()": "operations.logs.JsonFormatter"}},
        "handlers": {
            "console": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "filters": ["context", "redact"],
            }
        },
        "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
        # Django's loggers would otherwise keep their own text handlers (DEBUG, runserver).
        "loggers": {
            **_REDACTED_LOGGERS,
            **{
                name: {"handlers": [], "propagate": True}
                for name in ("django", "django.server", "celery")
            },
        },
    }
    CELERY_WORKER_HIJACK_ROOT_LOGGER = False
    CELERY_WORKER_REDIRECT_STDOUTS = False
