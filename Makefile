# ShuffleUp: `make run` serves the app with a demo league; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 5000
export FLASK_APP := app

.PHONY: install run dev test test-fast bench clean

$(BIN)/activate: requirements.txt requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $(BIN)/activate

install: $(BIN)/activate

instance/config.py:
	mkdir -p instance
	$(BIN)/python -c "import secrets; print(f'SECRET_KEY = {secrets.token_hex(32)!r}')" > instance/config.py

# The production server (gunicorn's gevent worker, gunicorn.conf.py): what a host running a pub
# night from a laptop should get. `make dev` is Flask's debug server, for development only.
run: install instance/config.py
	$(BIN)/flask db upgrade
	$(BIN)/flask league demo
	$(BIN)/gunicorn --bind 127.0.0.1:$(PORT) 'app:create_app()'

dev: install instance/config.py
	$(BIN)/flask db upgrade
	$(BIN)/flask league demo
	$(BIN)/flask run --debug --host 127.0.0.1 --port $(PORT)

test: install
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

test-fast: install
	$(BIN)/python -m pytest tests/unit tests/web

bench: install
	SHUFFLEUP_BENCH_SCALE=full $(BIN)/python -m pytest tests/bench --benchmark-enable --benchmark-only

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
