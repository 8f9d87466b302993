"""The one settings file, driven by environment variables.

Defaults suit local development: DEBUG on, SQLite in ``db.sqlite3``, Celery tasks run eagerly,
an in-process cache and emails written to files in ``var/mail/``, so ``scripts/serve`` needs
neither PostgreSQL, Redis nor a mail server. Production sets DEBUG=False, SECRET_KEY,
ALLOWED_HOSTS, DATABASE_URL, CELERY_BROKER_URL, CACHE_URL, EMAIL_URL and SITE_URL, in the
environment or in an ``.env`` file next to manage.py (``.env.example`` documents every one;
variables already in the environment win over the file).
"""

from email.utils import getaddresses
from pathlib import Path
from urllib.parse import urlsplit

import environ
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from keltis_site.local_secret import persisted_secret_key

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

# An operator's .env file, if there is one; ENV_FILE names another (tests point it nowhere).
_env_file = Path(env.str("ENV_FILE", default=str(BASE_DIR / ".env")))
if _env_file.is_file():
    environ.Env.read_env(_env_file)

DEBUG: bool = env.bool("DEBUG", default=True)

# scripts/serve runs the site on this machine as players meet it, DEBUG off (the site's own
# error pages, collected static files), over plain http: it sets LOCAL_SERVE=True. Then the
# secret key is made once and kept in VAR_DIR/secret_key, the local host names are allowed, and
# production's https-only settings (redirect, HSTS, secure cookies) stay off, as
# http://127.0.0.1 has no https to go to. Never on a public server.
LOCAL_SERVE: bool = env.bool("LOCAL_SERVE", default=False)

# What the embedded default keeps on this host's disk: the file queue of the Celery broker,
# the file cache, the emails written as files and beat's schedule. Each host or process group
# may have its own (production keeps none of these on disk: Redis, SMTP; only beat, which is
# one, writes its schedule here). `check --deploy` warns of a cache, broker or email backend
# that stays on one host (keltis_site/checks.py).
VAR_DIR = Path(env.str("VAR_DIR", default=str(BASE_DIR / "var")))

# An insecure key is only acceptable for local development; without DEBUG it must be set.
# Empty counts as unset (docker-compose.yml passes SECRET_KEY=${SECRET_KEY:-}).
SECRET_KEY: str = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    # a command run beside the local site (manage.py receive_mail, shell) shares its key, so
    # the links and reply addresses of its emails verify there too
    if LOCAL_SERVE or (DEBUG and (VAR_DIR / "secret_key").is_file()):
        SECRET_KEY = persisted_secret_key(VAR_DIR / "secret_key")
    elif not DEBUG:
        raise ImproperlyConfigured("Set SECRET_KEY: it is required when DEBUG is off.")
    else:
        SECRET_KEY = "django-insecure-local-development-only"

# The keys of the move records' hash chain (HMAC-SHA256, games/event_chain.py), comma-separated:
# the first signs new events, every one listed verifies, so a key is rotated by putting the new
# one first and running "manage.py resign_event_chains" before the old one is dropped. Keys
# derived from SECRET_KEY (and SECRET_KEY_FALLBACKS) always verify and sign when this is empty.
# docs/operations.md, "The move records: integrity".
EVENT_CHAIN_KEYS: list[str] = env.list("EVENT_CHAIN_KEYS", default=[])
if any(len(key) < 32 for key in EVENT_CHAIN_KEYS):
    raise ImproperlyConfigured("Each EVENT_CHAIN_KEYS key needs 32 characters or more.")

ALLOWED_HOSTS: list[str] = env.list(
    "ALLOWED_HOSTS",
    default=["localhost", "127.0.0.1", "[::1]"] if DEBUG or LOCAL_SERVE else [],
)

INSTALLED_APPS = [
    "keltis_site.apps.AdminConfig",  # django.contrib.admin, with a rate-limited login
    "keltis_site.apps.SiteConfig",  # the project's deployment checks (keltis_site/checks.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "allauth",
    "allauth.account",
    "csp",
    "accounts",
    "games",
    "notifications",
    "tournaments",
    "friends",
    "talk",
    "live",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served from this site (the CSP)
    "api",
]

AUTH_USER_MODEL = "accounts.User"

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Right after SecurityMiddleware: static files are answered before sessions or auth run.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # gzip for the pages, with Django's BREACH mitigation; never for an event stream
    # (keltis_site/compression.py says why). Django's ordering rule: before (outside) every
    # middleware that reads or changes the response body, so it compresses last; none below it
    # does (the others set headers only). After WhiteNoise, which answers static files itself
    # (already compressed at collectstatic, gzip and brotli) without reaching it.
    "keltis_site.compression.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language from the cookie set by the language menu, else the browser's
    # Accept-Language; a logged-in player's saved language wins (UserLanguageMiddleware).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Cache-Control: private, no-store on every page of a logged-in player (their hand...).
    "keltis_site.private_pages.PrivatePagesMiddleware",
    "accounts.middleware.UserTimeZoneMiddleware",
    "accounts.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "keltis_site.urls"
# A form sent without its CSRF token gets the site's page (templates/403_csrf.html).
CSRF_FAILURE_VIEW = "keltis_site.errors.csrf_failure"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "keltis_site.wsgi.application"

# SQLite by default; e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/keltis for PostgreSQL.
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
# Without DEBUG, database connections stay open between requests (60 s): a new PostgreSQL
# connection starts a server process, which cost every request 20-30 ms on the project's
# machine (bench/scale.py). DEBUG keeps Django's default of 0: the development server starts
# a thread per connection, whose kept connections would only pile up. So does LOCAL_SERVE
# (scripts/serve: gunicorn's threads, the worker and the stream server on SQLite), where a new
# connection is a file opened: 0.4 ms with its first query (2026-11-28), nothing worth keeping
# one per thread and process for. A DATABASE_URL may say otherwise (?conn_max_age=N); the
# health check replaces a kept connection that the database has closed.
DATABASES["default"].setdefault("CONN_MAX_AGE", 0 if DEBUG or LOCAL_SERVE else 60)
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # psycopg 3 then sends the parameters apart from the query, and after five runs of the same
    # query on a connection it prepares it: the kept connections parse and plan the few queries
    # of an action once. An action cost 1 ms less CPU (bench/scale.py, 2026-11-26). A pooler
    # that hands one connection to several clients (PgBouncer in transaction mode) cannot keep
    # prepared statements: set DATABASE_SERVER_SIDE_BINDING=False behind one.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "server_side_binding", env.bool("DATABASE_SERVER_SIDE_BINDING", default=True)
    )

elif DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves web requests, a worker and beat at once. SQLite's own
    # defaults made about one move in a hundred fail with "database is locked" while the worker
    # sent emails: a transaction that began reading could not take the write lock later, and
    # readers and the writer blocked each other. So: WAL (readers never wait for the writer),
    # transactions that take the write lock at BEGIN (IMMEDIATE: a writer waits its turn
    # instead of failing), and a busy timeout long enough for any transaction of ours.
    _sqlite = DATABASES["default"].setdefault("OPTIONS", {})
    _sqlite.setdefault("transaction_mode", "IMMEDIATE")
    _sqlite.setdefault("timeout", env.int("SQLITE_BUSY_TIMEOUT", default=20))
    _sqlite.setdefault("init_command", "PRAGMA journal_mode=WAL")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("hu", "Magyar"),
    ("pl", "Polski"),
    ("cs", "Čeština"),
    ("sk", "Slovenčina"),
    ("ru", "Русский"),
    ("de", "Deutsch"),
]
# Compiled by scripts/setup (manage.py compilemessages); the .mo files are build output.
LOCALE_PATHS = [BASE_DIR / "locale"]
# The language menu's choice for visitors who are not logged in (a year).
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Where `collectstatic` writes them (the tests that serve pages collect into a folder of their own).
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
# Whitenoise serves the collected files from the app. In production the names carry a hash of
# the content (cached for ever by browsers) and gzip/brotli copies are served when accepted;
# that needs `manage.py collectstatic`; each URL is worked out once a process
# (keltis_site/static_storage.py). DEBUG and the tests keep Django's plain storage.
if not DEBUG:
    STORAGES = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {
            "BACKEND": "keltis_site.static_storage.StaticStorage",
        },
    }

# Production security (DEBUG off): https only, with HSTS, secure cookies and no framing; not
# for the plain-http site of scripts/serve (LOCAL_SERVE), whose browser would otherwise be
# sent to an https://127.0.0.1 that is not there and keep no cookie.
# Behind a TLS-terminating proxy set BEHIND_PROXY=True so X-Forwarded-Proto tells Django the
# request was https (only when the proxy always sets that header itself).
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if not DEBUG and not LOCAL_SERVE:
    SECURE_HSTS_SECONDS: int = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS: bool = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    # Preloading is a commitment for the whole domain that is hard to undo, so it is the
    # operator's choice; while it is off, check --deploy's reminder about it is silenced.
    SECURE_HSTS_PRELOAD: bool = env.bool("SECURE_HSTS_PRELOAD", default=False)
    if not SECURE_HSTS_PRELOAD:
        SILENCED_SYSTEM_CHECKS = ["security.W021"]
    SECURE_SSL_REDIRECT: bool = env.bool("SECURE_SSL_REDIRECT", default=True)
    # A load balancer probes the health check over plain http.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SESSION_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    if env.bool("BEHIND_PROXY", default=False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Content-Security-Policy (django-csp; Django 5.2 has none built in): everything from this
# site only, and no inline scripts, styles or event handlers on any page (tests/browser checks
# the pages pass it). frame-ancestors 'none' repeats X-Frame-Options for current browsers.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
        "base-uri": [SELF],
        "object-src": [NONE],
    },
}

# Actions submitted (game page and emailed links): at most this many per user (per link
# token and client IP for emailed links) in a fixed window, "N/s", "N/m" or "N/h"; beyond
# it the answer is 429 and nothing is stored.
ACTION_RATE_LIMIT: str = env.str("ACTION_RATE_LIMIT", default="60/m")
# POSTs to the admin's login form from one client IP in a fixed window ("N/s", "N/m" or "N/h");
# beyond it the answer is 429 and the password is not checked (keltis_site/admin_site.py).
ADMIN_LOGIN_RATE_LIMIT: str = env.str("ADMIN_LOGIN_RATE_LIMIT", default="10/m")

# GET /healthz (keltis_site/health.py) answers 503 only when the database is unreachable;
# otherwise 200, and it reports "degraded" when the last deadline sweep (beat, every minute) or
# worker heartbeat (a task beat queues every 30 s) is older than these many seconds, or when
# emails were given up for good in the last HEALTH_FAILED_EMAIL_DAYS days (or the cache or the
# broker is unreachable).
HEALTH_MAX_SWEEP_AGE: int = env.int("HEALTH_MAX_SWEEP_AGE", default=180)
HEALTH_MAX_WORKER_AGE: int = env.int("HEALTH_MAX_WORKER_AGE", default=180)
HEALTH_FAILED_EMAIL_DAYS: int = env.int("HEALTH_FAILED_EMAIL_DAYS", default=3)
# The public sees only up or down; staff and requests bearing this token (the header
# "Authorization: Bearer <token>" or ?token=<token>) see every check. Empty: staff only.
HEALTH_TOKEN: str = env.str("HEALTH_TOKEN", default="")

# Logging: every process (web under gunicorn, Celery worker and beat) writes one line per event
# to stdout, where the container runtime collects it. LOG_FORMAT "json" (the default without
# DEBUG) gives JSON lines a log pipeline can parse; "plain" (the default with DEBUG or
# LOCAL_SERVE) is for reading in a terminal. Both carry the fields passed as ``extra``
# (game_id, seq, ...); see keltis_site/logging.py. Django's own loggers are routed through the
# same handler instead of the stderr and mail_admins handlers of its default configuration;
# gunicorn.conf.py applies this dictionary to gunicorn's master too, and keltis_site/celery.py
# to worker and beat.
LOG_LEVEL: str = env.str("LOG_LEVEL", default="INFO").upper()
LOG_FORMAT: str = env.str("LOG_FORMAT", default="plain" if DEBUG or LOCAL_SERVE else "json")
if LOG_FORMAT not in ("json", "plain"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be json or plain, not {LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {"()": "keltis_site.logging.JsonFormatter"},
        "plain": {"()": "keltis_site.logging.PlainFormatter"},
    },
    "handlers": {
        "stdout": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": LOG_FORMAT,
            # the handler, not each logger, applies LOG_LEVEL: Django's loggers keep their own
            # levels (so DEBUG does not print every template lookup) and still obey it
            "level": LOG_LEVEL,
        },
    },
    "root": {"level": LOG_LEVEL, "handlers": ["stdout"]},
    "loggers": {
        # configured (so their default handlers are dropped) and left to propagate to root
        name: {"handlers": [], "propagate": True}
        for name in ("django", "django.server", "gunicorn.error", "gunicorn.access")
    },
}

# Celery. Production and CI use Redis (CELERY_BROKER_URL=redis://...). The embedded default is
# kombu's file-system transport under var/celery/: a real worker and beat (scripts/serve starts
# them) with no server to install; queued tasks survive restarts as files.
CELERY_BROKER_URL: str = env.str("CELERY_BROKER_URL", default="filesystem://")
CELERY_FILESYSTEM_QUEUE = VAR_DIR / "celery" / "queue"
if CELERY_BROKER_URL.startswith("filesystem://"):
    CELERY_FILESYSTEM_QUEUE.mkdir(parents=True, exist_ok=True)  # the transport needs it
    # kombu's transport with each message written whole (a worker could read one half-written
    # and stop for good): keltis_site/celery_files.py
    CELERY_BROKER_TRANSPORT = "keltis_site.celery_files:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_FILESYSTEM_QUEUE),
        "data_folder_out": str(CELERY_FILESYSTEM_QUEUE),
        "store_processed": False,
        "control_folder": str(CELERY_FILESYSTEM_QUEUE.parent / "control"),
    }
else:
    # Redis redelivers an unacknowledged task after this long: longer than any task runs.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_TASK_ALWAYS_EAGER: bool = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
# Celery's Django fix-up closes every database connection after each task unless this is set:
# each task then opened a new PostgreSQL connection (a server process started, psycopg's
# prepared queries lost; py-spy: 6.6% of a fan-out worker's samples in the connect). With it the
# fix-up closes them only every this many tasks, and keltis_site.celery does what Django does
# around a request instead: kept for CONN_MAX_AGE while usable, closed after a failed task.
CELERY_DB_REUSE_MAX = 1000
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# Periodic work: the sweeps read indexed columns, so their cost follows what is due.
CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": {"task": "games.tasks.sweep_deadlines", "schedule": 60.0},
    # Consumed by a worker, so its heartbeat proves a worker is taking tasks (see /healthz).
    "worker-heartbeat": {"task": "games.tasks.worker_heartbeat", "schedule": 30.0},
    "sweep-deliveries": {"task": "notifications.tasks.sweep_deliveries", "schedule": 60.0},
    # invitation emails a dead worker or a down broker left, and invitations past their time
    "sweep-invitations": {"task": "friends.tasks.sweep_invitations", "schedule": 60.0},
    "sweep-bots": {"task": "games.tasks.sweep_bots", "schedule": 60.0},
    "queue-digests": {"task": "notifications.tasks.queue_digests", "schedule": 900.0},
    "rate-finished-games": {"task": "tournaments.tasks.rate_finished_games", "schedule": 300.0},
    "run-matchmaker": {"task": "tournaments.tasks.run_matchmaker", "schedule": 60.0},
    "advance-tournaments": {"task": "tournaments.tasks.advance_tournaments", "schedule": 60.0},
    "close-seasons": {"task": "tournaments.tasks.close_seasons", "schedule": 900.0},
    # every running game's whole event chain (an action checks only the link it extends)
    "verify-event-chains": {"task": "games.tasks.verify_running_chains", "schedule": 3600.0},
}

# Ratings: K by experience (FIDE-like), settings so they can be tuned.
ELO_K_NEW: int = 40  # a player's first ELO_PROVISIONAL_GAMES rated games of a game
ELO_K_REGULAR: int = 20
ELO_K_TOP: int = 10  # once the rating has reached ELO_TOP_THRESHOLD
ELO_PROVISIONAL_GAMES: int = 30
ELO_TOP_THRESHOLD: int = 2400

# Deadlines: consecutive timeouts before a seat is retired; vacation days a player may take
# in a calendar year (their clocks stop meanwhile).
MAX_TIMEOUTS: int = env.int("MAX_TIMEOUTS", default=3)
VACATION_DAYS_PER_YEAR: int = env.int("VACATION_DAYS_PER_YEAR", default=30)
# What one player may have created and waiting at once, so that one account cannot flood the
# lobby or the tournament list (games.creation_limits; staff and the site's own games, made by
# the league matchmaker and tournament rounds, are not limited): open games waiting for
# players, tournaments open for sign-up, and tournaments created in any 24 hours.
MAX_OPEN_GAMES_PER_PLAYER: int = env.int("MAX_OPEN_GAMES_PER_PLAYER", default=5)
# Unfinished (open or running) games with a bot seat a player may have created: each bot turn
# costs a worker CPU. League and tournament tables are the site's and do not count.
MAX_BOT_GAMES_PER_PLAYER: int = env.int("MAX_BOT_GAMES_PER_PLAYER", default=5)
# Invitations (friends.invitations): how long one waits for an answer, and how many a player
# may send a day to addresses without an account (unsolicited email from our domain: the
# limit keeps one account from using us to send mail to strangers).
INVITATION_DAYS: int = env.int("INVITATION_DAYS", default=7)
INVITATIONS_TO_ADDRESSES_PER_DAY: int = env.int("INVITATIONS_TO_ADDRESSES_PER_DAY", default=10)
# Table talk (talk): the longest message, how many one player may write at one table in a
# minute and in an hour, how many days after a game's end its talk stays open, and how old an
# account must be for the links it writes to be links (younger: shown as text).
TALK_MAX_LENGTH: int = env.int("TALK_MAX_LENGTH", default=500)
TALK_RATE_PER_MINUTE: str = env.str("TALK_RATE_PER_MINUTE", default="5/m")
TALK_RATE_PER_HOUR: str = env.str("TALK_RATE_PER_HOUR", default="60/h")
TALK_OPEN_DAYS_AFTER_END: int = env.int("TALK_OPEN_DAYS_AFTER_END", default=30)
TALK_LINKS_AFTER_DAYS: int = env.int("TALK_LINKS_AFTER_DAYS", default=7)
# Clubs (player-run leagues, friends.clubs): how many active ones a player may run at once.
MAX_CLUBS_PER_PLAYER: int = env.int("MAX_CLUBS_PER_PLAYER", default=3)
MAX_SIGNUP_TOURNAMENTS_PER_PLAYER: int = env.int("MAX_SIGNUP_TOURNAMENTS_PER_PLAYER", default=3)
MAX_TOURNAMENTS_PER_PLAYER_PER_DAY: int = env.int("MAX_TOURNAMENTS_PER_PLAYER_PER_DAY", default=5)
# In a league whose short tables are filled with bots, how long a member waits for people
# first (since joining, and since their latest league game began or ended).
LEAGUE_BOT_WAIT_MINUTES: int = env.int("LEAGUE_BOT_WAIT_MINUTES", default=60)
# An email claimed by a worker that then died is sent again after this many seconds.
NOTIFICATION_SENDING_TIMEOUT: int = env.int("NOTIFICATION_SENDING_TIMEOUT", default=600)
# An email that keeps failing (mail server down, refused, or it cannot be written) is retried
# this long from its first failed attempt, then marked failed for staff (admin, /healthz).
NOTIFICATION_RETRY_HOURS: int = env.int("NOTIFICATION_RETRY_HOURS", default=48)
# Hosts or addresses a chat webhook (or a push subscription) may reach although they are not
# public (loopback, a private network): for tests against a local receiver only; empty in
# production, where notifications.channels.netguard refuses every non-public destination.
NOTIFICATION_WEBHOOK_ALLOW: list[str] = env.list("NOTIFICATION_WEBHOOK_ALLOW", default=[])
# Quiet while active (notifications/quiet.py): a player on the game's page, or who acted on its
# page (not by email reply, link or API) this many minutes ago or less, gets its turn message
# only once this long has passed with the turn still theirs (0: at once). Reminders are never
# held; "always notify me" opts out.
NOTIFICATION_QUIET_MINUTES: int = env.int("NOTIFICATION_QUIET_MINUTES", default=10)

# The public address of the site, for every link in every email (game and account emails
# alike, whatever host a request named). Locally it is the port the site runs on: PORT, which
# scripts/serve passes to the web server and to the worker that sends the turn emails.
PORT: int = env.int("PORT", default=8000)
SITE_URL: str = env.str("SITE_URL", default=f"http://127.0.0.1:{PORT}").rstrip("/")
# Live pages (live/): the stream server (uvicorn keltis_site.asgi, `live` in compose) serves
# /live/events/ at LIVE_STREAM_URL, by default the site's host on LIVE_PORT (PORT + 1); behind
# a reverse proxy that routes /live/ to it, set LIVE_STREAM_URL to SITE_URL. The pages' origin
# may open the stream with its cookies (CORS), and the pages' CSP may connect to it.
LIVE_PORT: int = env.int("LIVE_PORT", default=PORT + 1)
_site = urlsplit(SITE_URL)
LIVE_STREAM_URL: str = env.str(
    "LIVE_STREAM_URL", default=f"{_site.scheme}://{_site.hostname}:{LIVE_PORT}"
).rstrip("/")
LIVE_ALLOWED_ORIGINS: list[str] = [f"{_site.scheme}://{_site.netloc}"]
CONTENT_SECURITY_POLICY["DIRECTIVES"]["connect-src"] = [
    SELF, "{0.scheme}://{0.netloc}".format(urlsplit(LIVE_STREAM_URL))
]
# How a committed change reaches the stream servers (live/transport.py): Redis pub/sub
# (redis://host:port/n, on the channel LIVE_CHANNEL) in production, else a Unix datagram
# socket under VAR_DIR (the embedded default: one stream server on this machine, no Redis).
LIVE_PUBSUB_URL: str = env.str("LIVE_PUBSUB_URL", default=f"unix://{VAR_DIR / 'live.sock'}")
LIVE_CHANNEL: str = env.str("LIVE_CHANNEL", default="keltis:live")
# A comment line this often keeps proxies from closing a quiet stream; the browser waits
# LIVE_RETRY_MS before its own reconnect (live.js backs off further on repeated failures).
LIVE_KEEPALIVE_SECONDS: float = env.float("LIVE_KEEPALIVE_SECONDS", default=20.0)
LIVE_RETRY_MS: int = env.int("LIVE_RETRY_MS", default=1000)
# Every database read of the stream server's streams runs in a pool of this many threads, each
# with one connection (live/db.py): the process's whole connection budget, however many
# streams it holds.
LIVE_DB_THREADS: int = env.int("LIVE_DB_THREADS", default=2)
# Per stream server process (live/limits.py): open streams per logged-in player and per client
# address (IPv6: per /64), and streams opened per address in a minute; past them a 429 with
# Retry-After, and the page's script backs off.
LIVE_STREAMS_PER_USER: int = env.int("LIVE_STREAMS_PER_USER", default=20)
LIVE_STREAMS_PER_ADDRESS: int = env.int("LIVE_STREAMS_PER_ADDRESS", default=100)
LIVE_STREAM_OPENS_PER_MINUTE: int = env.int("LIVE_STREAM_OPENS_PER_MINUTE", default=120)

# How the site names itself in emails (never by host and port).
SITE_NAME: str = env.str("SITE_NAME", default="Keltis by mail")

# The cache holds allauth's rate-limit counters and the sweep and worker heartbeats that
# /healthz reads, so the web, worker and beat processes must share it: production points
# CACHE_URL at Redis (e.g. rediscache://127.0.0.1:6379/1); the embedded default is files under
# var/cache/, which the processes scripts/serve starts on one machine share as well.
CACHES = {
    "default": env.cache_url("CACHE_URL", default=f"filecache://{VAR_DIR / 'cache'}")
}
# Redis is served by Django's RedisCache made to keep the site up while Redis is away
# (keltis_site/cache.py): misses instead of errors, rate limits counted per process, 1 s
# timeouts (CACHE_URL's ?socket_timeout=&socket_connect_timeout= change them).
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    CACHES["default"]["BACKEND"] = "keltis_site.cache.RedisCache"
# Sessions are read from that cache and written through to the database, so a cache that
# restarts logs nobody out, and while Redis is away they are read from the database: each
# request of a logged-in player reads its session, and with Redis that is a cache hit instead
# of a query.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# Emails go to files in var/mail/ by default, one file per email, to be read locally;
# production sets e.g. EMAIL_URL=smtp+tls://user:password@mail.example:587.
_email = env.email_url("EMAIL_URL", default=f"filemail:///{VAR_DIR / 'mail'}")
EMAIL_BACKEND: str = _email["EMAIL_BACKEND"]
EMAIL_FILE_PATH: str = _email["EMAIL_FILE_PATH"]
EMAIL_HOST: str = _email["EMAIL_HOST"] or "localhost"
EMAIL_PORT: int = _email["EMAIL_PORT"] or 25
EMAIL_HOST_USER: str = _email["EMAIL_HOST_USER"] or ""
EMAIL_HOST_PASSWORD: str = _email["EMAIL_HOST_PASSWORD"] or ""
EMAIL_USE_TLS: bool = _email.get("EMAIL_USE_TLS", False)
EMAIL_USE_SSL: bool = _email.get("EMAIL_USE_SSL", False)
# Seconds an SMTP connection may wait on the server: without a limit a hung server holds a
# worker (and the emails it claimed) or a sign-up request forever.
EMAIL_TIMEOUT: int = env.int("EMAIL_TIMEOUT", default=20)
DEFAULT_FROM_EMAIL: str = env.str("DEFAULT_FROM_EMAIL", default=f"{SITE_NAME} <noreply@localhost>")
# Staff emailed when a game is frozen because its event log failed an integrity check
# (games/integrity.py): comma-separated, "Name <address>" or the address alone. Empty: the
# ERROR log line and the admin's "frozen" filter only. (Django's own error mails stay off:
# LOGGING has no mail_admins handler.)
ADMINS: list[tuple[str, str]] = [
    (name or address, address) for name, address in getaddresses(env.list("ADMINS", default=[]))
]
SERVER_EMAIL: str = DEFAULT_FROM_EMAIL  # the sender of those emails
EMAIL_SUBJECT_PREFIX = f"[{SITE_NAME}] "

# Web Push (notifications/channels/push.py): the site's VAPID key, the same on every host, as
# PEM or the raw key in base64url (e.g. `vapid --gen` of py-vapid, or openssl ecparam -name
# prime256v1 -genkey | openssl pkcs8 -topk8 -nocrypt). Without it the embedded default and
# DEBUG make one once and keep it in WEBPUSH_VAPID_KEY_FILE (under VAR_DIR, like the secret
# key); elsewhere, with neither, push is off. WEBPUSH_SUBJECT is the contact push services
# see (mailto: or https:), by default DEFAULT_FROM_EMAIL's address.
WEBPUSH_VAPID_PRIVATE_KEY: str = env.str("WEBPUSH_VAPID_PRIVATE_KEY", default="")
WEBPUSH_VAPID_KEY_FILE: str = env.str(
    "WEBPUSH_VAPID_KEY_FILE",
    default=str(VAR_DIR / "vapid_private_key.pem") if LOCAL_SERVE or DEBUG else "",
)
WEBPUSH_SUBJECT: str = env.str("WEBPUSH_SUBJECT", default="")
WEBPUSH_TIMEOUT: float = env.float("WEBPUSH_TIMEOUT", default=10.0)
# push services are https; only the tests' loopback push service is plain http (so this is
# not read from the environment: no deployment needs it)
WEBPUSH_ALLOW_HTTP: bool = False

# Play by email (notifications/inbound/): with INBOUND_EMAIL_DOMAIN set, every turn email and
# reminder carries Reply-To: play+<signed turn token>@INBOUND_EMAIL_DOMAIN, and a reply to it
# (through `manage.py receive_mail` or `manage.py smtpd`) takes the turn. Unset: no Reply-To.
INBOUND_EMAIL_DOMAIN: str = env.str("INBOUND_EMAIL_DOMAIN", default="")
# The authserv-id our own receiving mail server writes in Authentication-Results (RFC 8601):
# a reply whose header from it says dmarc=fail is refused; such headers from others are ignored.
# Empty: no header is trusted.
INBOUND_AUTHSERV_ID: str = env.str("INBOUND_AUTHSERV_ID", default="")
# The largest reply read, in bytes: a larger one is refused unread.
INBOUND_MAX_BYTES: int = env.int("INBOUND_MAX_BYTES", default=1_000_000)
# Replies handled per sender address in a window (N/m, N/h, N/d); past it they are ignored.
INBOUND_RATE_LIMIT: str = env.str("INBOUND_RATE_LIMIT", default="30/h")
# Where `manage.py smtpd` listens (its docker-compose service maps port 25 to it).
INBOUND_SMTP_HOST: str = env.str("INBOUND_SMTP_HOST", default="127.0.0.1")
INBOUND_SMTP_PORT: int = env.int("INBOUND_SMTP_PORT", default=2525)

# Accounts: django-allauth. Players sign in with their email address and a password. Nobody
# types a username: accounts.adapter makes a unique one from the display name, never from the
# email, as usernames are public (profile links /players/<username>/, public_name's fallback).
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",  # the admin login, by username
    "allauth.account.auth_backends.AuthenticationBackend",  # the site's login, by email
]
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_FORMS = {"signup": "accounts.forms.SignupForm"}  # adds the display name
ACCOUNT_USER_DISPLAY = "accounts.adapter.user_display"  # the display name, in pages and emails
ACCOUNT_USER_MODEL_USERNAME_FIELD = "username"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
# Sign-up and password reset never tell whether an address has an account: the same page and
# redirect, and an email to the address either way (allauth's default, relied on here). Both
# sign-up paths also do the same work: accounts.forms.SignupForm.try_save hashes the password
# on both, accounts.adapter sends account emails after the response.
ACCOUNT_PREVENT_ENUMERATION = True
# No login until the address is verified: the site's whole point is emailing players.
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
# The emailed link opens a page whose button (a POST) confirms: mail scanners that prefetch
# links must not confirm addresses. Confirming logs the new player in, but only in the
# browser session that signed up (allauth checks it): a link opened elsewhere only confirms.
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
# One address per account; a new one replaces it once verified.
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_LOGOUT_ON_GET = False
ACCOUNT_EMAIL_SUBJECT_PREFIX = f"[{SITE_NAME}] "
ACCOUNT_DEFAULT_HTTP_PROTOCOL = urlsplit(SITE_URL).scheme or "http"
# Counted in CACHES per client IP ("ip") or per "key": for failed logins the key is the email
# address AND the client IP (accounts.adapter), so a stranger's guesses never lock the owner out.
# Failed logins: 10 a minute from one IP (over all accounts), 5 in 5 minutes from one IP for one
# account; then the login form says to try later.
# allauth's defaults apply to the other actions. Django's admin login is not limited by these:
# ADMIN_LOGIN_RATE_LIMIT is (keltis_site/admin_site.py).
ACCOUNT_RATE_LIMITS = {
    "login": "30/m/ip",
    "login_failed": "10/m/ip,5/5m/key",
    "signup": "20/h/ip",
    "reset_password": "10/h/ip,3/h/key",
}
# Behind N reverse proxies of ours, the client IP is the N-th address from the right of
# X-Forwarded-For; with 0 it is REMOTE_ADDR (which, behind a proxy, is the proxy's).
ALLAUTH_TRUSTED_PROXY_COUNT: int = env.int("TRUSTED_PROXY_COUNT", default=0)

# The public API (api/, docs/api.md): Django REST Framework under /api/v1/, a personal token
# (Authorization: Bearer) or the site's session; every refusal is {"code", "message"}.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.BearerTokenAuthentication",
        "api.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.permissions.TokenScope"],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.TokenRateThrottle"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Keltis by mail API",
    "DESCRIPTION": "Play Keltis and Keltis: the card game through programs. See docs/api.md.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # no link inside each operation's row, itself a button: a nested control (axe-core's
    # nested-interactive); the docs page's other mends are api/static/api/docs.{css,js}
    "SWAGGER_UI_SETTINGS": {"deepLinking": False},
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {"GameKindEnum": "games.models.GameKind.choices"},
}
# Calls per token (per player for the site's session) in a fixed window: reads and actions
# counted apart. Beyond it: 429 {"code": "rate_limited"}, nothing changed.
API_READ_RATE_LIMIT: str = env.str("API_READ_RATE_LIMIT", default="300/m")
API_PLAY_RATE_LIMIT: str = env.str("API_PLAY_RATE_LIMIT", default="60/m")
