# Two commands do everything on a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8000
WORKERS ?= 0
LEARNERS ?= 1000
# pytest-xdist processes for `make test`: two, one of which runs every browser test in turn (one Chromium at
# a time: tests/conftest.py) while the other runs the rest; TEST_WORKERS=0 runs everything on one process.
TEST_WORKERS ?= 2

.PHONY: serve test check lint bench chromium redis nginx clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

# `make test` also needs the official SDK (the `sdk` extra) for tests/sdk; `make serve` does not.
$(VENV)/.installed-sdk: $(VENV)/.installed
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test,sdk]'
	touch $@

# A class: make serve HOST=0.0.0.0 WORKERS=2 (prints the addresses learners can open).
serve: $(VENV)/.installed
	$(VENV)/bin/lesson serve --host $(HOST) --port $(PORT) --workers $(WORKERS)

check: $(VENV)/.installed
	$(VENV)/bin/lesson check

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# Browser tests need a Chromium. Order: $$LESSON_CHROMIUM, Debian's chromium (with its headless shell,
# which opens pages in about half the time), Playwright's own managed browser; else install Debian's
# packages when we can. Without the shell the tests run on the full browser; the tests of third-party
# storage blocking always do (the shell reads no profile settings).
chromium: $(VENV)/.installed
	@if [ -n "$$LESSON_CHROMIUM" ]; then \
	  [ -x "$$LESSON_CHROMIUM" ] || { echo "LESSON_CHROMIUM=$$LESSON_CHROMIUM is not an executable" >&2; exit 1; }; \
	elif [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromium-headless-shell ]; then :; \
	elif [ -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian's chromium-headless-shell for the browser tests..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null; \
	elif [ -x /usr/bin/chromium ]; then :; \
	elif $(PY) -c 'import os,sys; from playwright.sync_api import sync_playwright as s; p=s().start(); sys.exit(0 if os.path.exists(p.chromium.executable_path) else 1)' 2>/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian's chromium and chromium-headless-shell for the browser tests..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium chromium-headless-shell >/dev/null; \
	else \
	  echo "No Chromium found. Install one (Debian: sudo apt-get install chromium chromium-headless-shell)," >&2; \
	  echo "or set LESSON_CHROMIUM=/path/to/chromium, or run: $(PY) -m playwright install chromium" >&2; \
	  exit 1; \
	fi

# A Debian package a test needs: use the command when present, install it when we are root with
# apt-get, else stop with what to do rather than run without the tests that need it.
# $(call debian_need,command,package,why)
define debian_need
	@if command -v $(1) >/dev/null || [ -x /usr/sbin/$(1) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "Installing Debian's $(2) for $(3)..."; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(2) >/dev/null; \
	else \
	  echo "No $(1) found. Install one (Debian: sudo apt-get install $(2)): $(3) need it" >&2; \
	  exit 1; \
	fi
endef

# The outbox's Redis tests start their own redis-server on a free loopback port.
redis:
	$(call debian_need,redis-server,redis-server,the outbox tests)

# tests/web/test_proxy.py runs the nginx block docs/classroom.md gives in front of the server.
nginx:
	$(call debian_need,nginx,nginx-light,the proxy tests)

test: $(VENV)/.installed-sdk chromium redis nginx
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --rerun-show-tracebacks

bench: $(VENV)/.installed chromium redis
	$(PY) bench/sim_bench.py
	$(PY) bench/service_bench.py
	$(PY) bench/load_bench.py --learners $(LEARNERS)
	$(PY) bench/page_bench.py
	$(PY) bench/outbox_bench.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache
