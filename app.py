"""ShuffleUp's application factory."""
import os

from flask import Flask


def create_app(test_config=None):
    """Build the app: defaults, then instance/config.py (or test_config), then extensions,
    blueprints and the `league` commands (the flaskr tutorial's shape)."""
    app = Flask(__name__, instance_relative_config=True)
    os.makedirs(app.instance_path, exist_ok=True)
    app.config.from_object("wiring.config.Defaults")
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
        app.config.from_prefixed_env("SHUFFLEUP")
    else:
        app.config.from_mapping(test_config)

    from wiring import config
    config.finish(app)

    from live import notices, push
    from services import models  # noqa: F401  (registers the tables and the user loader)
    from wiring import extensions, logs, security
    logs.init_app(app)  # first: its clock starts before any other hook runs
    extensions.init_app(app)
    security.init_app(app)
    notices.init_app(app)
    push.init_app(app)

    from blueprints import api, auth, cli, errors, filters, health, host, live, once, operator, organiser, play
    for blueprint in (auth.bp, operator.bp, organiser.bp, host.bp, play.bp, live.bp, api.bp, health.bp):
        app.register_blueprint(blueprint)
    filters.init_app(app)
    errors.init_app(app)
    once.init_app(app)  # after the extensions: the CSRF check and the rate limits come before a key is claimed
    cli.init_app(app)
    return app
