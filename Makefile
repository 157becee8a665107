# ShuffleUp: `make run` serves the app with a demo league; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 5000
export FLASK_APP := app

.PHONY: install run dev chromium pdf-libs test test-fast test-pg bench clean

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
# night from a laptop should get. `make dev` is Flask's debug server, for development only. Both print
# the one-time set-up link (a line with /setup/) while this ShuffleUp has no operator.
run: install instance/config.py
	$(BIN)/flask db upgrade
	$(BIN)/flask league demo
	$(BIN)/gunicorn --bind 127.0.0.1:$(PORT) 'app:create_app()'

dev: install instance/config.py
	$(BIN)/flask db upgrade
	$(BIN)/flask league demo
	$(BIN)/flask league setup-link --base-url http://127.0.0.1:$(PORT)
	$(BIN)/flask run --debug --host 127.0.0.1 --port $(PORT)

# The browser tests drive Debian's Chromium (never a browser Playwright downloads): install it from
# Debian's packages when this machine can, or stop at once with the one command to run.
CHROMIUM ?= /usr/lib/chromium/chromium
chromium:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-dejavu-core; \
	  else \
	    echo "The browser tests need Debian's Chromium: run  sudo apt-get install chromium  then make test again." >&2; exit 1; \
	  fi; \
	fi

# The month-end pack's PDF (WeasyPrint) needs Debian's pango; its browser test renders the PDF's pages
# with poppler's pdftoppm; the share image draws with the DejaVu fonts, names in other scripts with
# Debian's Noto fonts (fonts-noto-core: Devanagari, Thai…; fonts-noto-cjk: Chinese, Japanese, Korean)
# or Droid Sans Fallback (fonts-droid-fallback), which the PDF falls back to as well.
PANGO := /usr/lib/$(shell uname -m)-linux-gnu/libpangoft2-1.0.so.0
pdf-libs:
	@if [ ! -e $(PANGO) ] || ! command -v pdftoppm >/dev/null || [ ! -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] \
	    || [ ! -e /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf ] \
	    || [ ! -e /usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf ] \
	    || [ ! -e /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
	      libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 poppler-utils fonts-dejavu-core fonts-droid-fallback \
	      fonts-noto-core fonts-noto-cjk; \
	  else \
	    echo "The PDF needs Debian's pango: run  sudo apt-get install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 poppler-utils fonts-dejavu-core fonts-droid-fallback fonts-noto-core fonts-noto-cjk  then make test again." >&2; exit 1; \
	  fi; \
	fi

# Every suite runs in parallel (pytest-xdist): one worker a core, each with its own database copies
# (SQLite files under its own temporary folder, PostgreSQL databases named at random) and its own
# ports; worksteal evens out the long browser and fault tests. PYTEST_WORKERS=0 runs in one process.
PYTEST_WORKERS ?= auto
PYTEST := $(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist worksteal

test: install chromium pdf-libs
	$(BIN)/ruff check .
	$(PYTEST)

test-fast: install pdf-libs
	$(PYTEST) tests/unit tests/web

# The web tests marked both_databases again on PostgreSQL (127.0.0.1:5432, user postgres, trust auth;
# or SHUFFLEUP_TEST_PG=postgresql://…/postgres): a database migrated once and a copy for each test.
# Each such module says why it runs on both; the rest run on SQLite alone. The services tests (the
# races, faults, rights, several processes) run on PostgreSQL in `make test` already.
test-pg: install pdf-libs
	$(PYTEST) tests/web --db=postgresql -m both_databases

bench: install
	SHUFFLEUP_BENCH_SCALE=full $(BIN)/python -m pytest tests/bench --benchmark-enable --benchmark-only

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
