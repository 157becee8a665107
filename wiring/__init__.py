"""How the app is put together: its configuration (defaults and the environment) and the Flask
extensions (database, migrations, logins, CSRF, rate limits, compression), created unbound and
attached by create_app; the security headers and Secure cookies; the health checks of the database
and Redis; the JSON request log."""
