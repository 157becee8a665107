"""Configuration defaults and the environment overrides README promises (DATABASE_URL, REDIS_URL)."""
import os
import secrets

from jinja2 import StrictUndefined


class Defaults:
    SECRET_KEY = None
    SQLALCHEMY_DATABASE_URI = None
    SQLALCHEMY_ENGINE_OPTIONS: dict = {}
    REDIS_URL = None
    HEARTBEAT_S = 20  # live streams: a comment line this often keeps proxies from closing them
    WTF_CSRF_TIME_LIMIT = None  # a host's phone may sit on one page all night
    SESSION_COOKIE_SAMESITE = "Lax"
    SESSION_COOKIE_HTTPONLY = True
    REMEMBER_COOKIE_SAMESITE = "Lax"
    RATELIMIT_STORAGE_URI = "memory://"
    # Redis down must not lock anyone out: limits are counted in this process's memory until it is
    # back, and a storage error never fails the request.
    RATELIMIT_IN_MEMORY_FALLBACK_ENABLED = True
    RATELIMIT_SWALLOW_ERRORS = True
    RATELIMIT_HEADERS_ENABLED = True
    LOGIN_RATE_LIMIT = "10 per minute"  # per address, every try
    LOGIN_PAIR_RATE_LIMIT = "10 per minute"  # failed tries per username from one address: then 429
    # Failed tries per username from any address before each further try waits LOGIN_SLOW_DOWN_S
    # (a slow-down, never a block: nobody can lock a host out by guessing wrong).
    LOGIN_ACCOUNT_SLOW_AFTER = "10 per minute"
    LOGIN_SLOW_DOWN_S = 2.0
    # What anyone can do without a login (wiring/rate_limits.py; the arithmetic of what a guesser can
    # reach is in docs/reliability.md). A pub's phones may share one address: the per-address limits
    # leave room for a door's rush.
    CHECK_IN_RATE_LIMIT = "30 per minute"  # check-in posts per address, every try
    CHECK_IN_LINK_RATE_LIMIT = "60 per minute"  # check-ins through one night's link, from anywhere
    CLAIM_RATE_LIMIT = "10 per minute"  # member-card claims per address, every try
    # Wrong claim codes from every address together: what bounds a guesser with many addresses.
    CLAIM_GUESS_LIMIT = "100 per minute"
    MOVE_CODE_RATE_LIMIT = "10 per hour"  # one-time codes a member's own phone asks for
    PREREG_RATE_LIMIT = "12 per minute"  # pre-registration taps per member (a pub's phones share an address)
    VENUE_LINK_RATE_LIMIT = "120 per minute"  # a venue poster's link per address
    # Failed tries of one set-up or password link: the tenth kills it (a link lives a day at most; the
    # set-up link until the next start, which prints a new one).
    # Served over HTTPS (SHUFFLEUP_HTTPS=1): Secure cookies and HSTS on every response, not only on
    # requests that arrive by HTTPS. PROXY_HOPS (SHUFFLEUP_PROXY_HOPS=1 behind nginx): how many
    # proxies' X-Forwarded-* headers to trust (ProxyFix), for the client's address and scheme.
    HTTPS = False
    PROXY_HOPS = 0
    # One tap, one action (blueprints/once.py): how long a repeat waits for the first sending's answer
    # before "already being done"; after how long a claim whose request never answered (a worker
    # killed) may be taken over (longer than any request takes); how long keys are kept.
    ONCE_WAIT_S = 5.0
    ONCE_ABANDONED_S = 30.0
    ONCE_LIFETIME_H = 24
    COMPRESS_MIMETYPES = [
        "text/html", "text/css", "text/javascript", "application/javascript",
        "application/json", "image/svg+xml", "application/manifest+json",
    ]
    COMPRESS_MIN_SIZE = 256
    # The largest request body (wiring/body_limit.py), checked before anything reads it. Every route:
    # 128 KB, above the largest form the app draws: the blind structure editor at its 100 items is 14 KB
    # with every break's label and colour-up note at full length, and 61 KB if all of them are
    # in a script a browser sends as 9 bytes a character (a tap or a check-in is under 1 KB). Only an
    # organiser's file routes take more: a results CSV (2 MB, and its confirmation carries the checked
    # file back in a signed field) and a league file with many years of history (tens of MB), which the
    # operator's page takes too.
    # MAX_CONTENT_LENGTH, which Werkzeug applies wherever no route says otherwise, is the small one too.
    REQUEST_BODY_MAX = 128 * 1024
    RESULTS_FILE_BODY_MAX = 4 * 1024 * 1024
    LEAGUE_FILE_BODY_MAX = 64 * 1024 * 1024
    MAX_CONTENT_LENGTH = REQUEST_BODY_MAX
    # A form's text fields held in memory (Werkzeug's default, said here): the results confirmation's
    # signed file is the largest, at most 400 KB (blueprints/organiser/data.py).
    MAX_FORM_MEMORY_SIZE = 500_000
    # One JSON line per request on the `shuffleup.requests` logger (wiring/logs.py); SHUFFLEUP_REQUEST_LOG=0
    # turns it off (nginx's own access log may be enough).
    REQUEST_LOG = True
    # How long a health check or a request waits for PostgreSQL or Redis before calling it down.
    SERVICE_TIMEOUT_S = 3
    # /healthz calls the disk full (503) when the instance folder's or the SQLite file's filesystem has
    # less free than this (SHUFFLEUP_DISK_MIN_FREE_MB): a night's writes are small, a backup is not.
    DISK_MIN_FREE_MB = 64
    # How a new password is hashed (Werkzeug's method string). scrypt costs about 50 ms a hash by
    # design; the tests set a cheap method, as their passwords guard nothing. A stored hash names its
    # own method, so a login checks any hash whatever this says today.
    PASSWORD_HASH_METHOD = "scrypt"
    # Web Push (live/push.py): the push services the server will post to, as origins (comma-separated in
    # SHUFFLEUP_PUSH_SERVICES; "*." for any subdomain); None: the browsers' own (league.push). The VAPID
    # key pair lives in instance/vapid_private.pem, made on first run; PUSH_CONTACT is the VAPID "sub".
    PUSH_SERVICES = None
    PUSH_CONTACT = None
    PUSH_TIMEOUT_S = 10
    # Who sends (docs/push.md): each process its own messages, or, with REDIS_URL, any process from the
    # queue in Redis; SHUFFLEUP_PUSH_SEND_HERE=false leaves the sending to `flask league push-sender`, so
    # the web workers only queue (their requests never share a CPU with the encryption). While Redis is
    # down every process sends its own whatever this says.
    PUSH_SEND_HERE = True
    PUSH_SENDERS = 2
    PUSH_REDIS_PREFIX = "shuffleup:push"
    # With Redis, a claimed message's lease (seconds; never under three PUSH_TIMEOUT_S): a process that
    # dies holding a message lets it run out, and another process sends the message.
    PUSH_LEASE_S = 60


def database_url(url: str) -> str:
    """Accept the usual postgres:// and postgresql:// forms and use the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def server_engine_options(config) -> dict:
    """A database server may restart in the middle of a night: test each pooled connection before
    use (pool_pre_ping), so the first request after the restart gets a fresh one instead of an
    error, and give up connecting after SERVICE_TIMEOUT_S (a request during an outage answers 503
    at once; wiring/health.py) rather than hanging the host's phone."""
    options = {"pool_pre_ping": True, **config.get("SQLALCHEMY_ENGINE_OPTIONS", {})}
    if config["SQLALCHEMY_DATABASE_URI"].startswith("postgresql"):
        connect_args = {"connect_timeout": max(1, int(config.get("SERVICE_TIMEOUT_S") or 3)),
                        **options.get("connect_args", {})}
        options["connect_args"] = connect_args
    return options


def finish(app) -> None:
    """Fill what depends on the environment or the instance folder once the config files are read."""
    config = app.config
    url = os.environ.get("DATABASE_URL") if not config.get("TESTING") else None
    if url:
        config["SQLALCHEMY_DATABASE_URI"] = url
    if not config.get("SQLALCHEMY_DATABASE_URI"):
        config["SQLALCHEMY_DATABASE_URI"] = "sqlite:///" + os.path.join(app.instance_path, "league.db")
    config["SQLALCHEMY_DATABASE_URI"] = database_url(config["SQLALCHEMY_DATABASE_URI"])
    if not config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite"):
        config["SQLALCHEMY_ENGINE_OPTIONS"] = server_engine_options(config)
    redis_url = os.environ.get("REDIS_URL") if not config.get("TESTING") else None
    if redis_url:
        config["REDIS_URL"] = redis_url
    if config.get("REDIS_URL") and config.get("RATELIMIT_STORAGE_URI") == "memory://":
        config["RATELIMIT_STORAGE_URI"] = config["REDIS_URL"]
    if not config.get("SECRET_KEY"):
        # Without instance/config.py (made by `make run`) sessions last only as long as this process.
        app.logger.warning("No SECRET_KEY in instance/config.py: using a random one for this process.")
        config["SECRET_KEY"] = secrets.token_hex(32)
    if config.get("TESTING"):
        app.jinja_env.undefined = StrictUndefined
