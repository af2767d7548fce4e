# tableref: `make run` starts the dashboard on the simulated demo table, `make test` runs every test.
# Both create .venv when it is missing and install what is needed first.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
HOST   ?= 127.0.0.1
PORT   ?= 8765

.PHONY: run test install chromium clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check torch==2.14.1 torchvision==0.29.1
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

# Debian's chromium for the browser tests (never a browser download of Playwright's own).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; fi; }

run: $(STAMP)
	$(VENV)/bin/tableref serve --demo --host $(HOST) --port $(PORT)

test: $(STAMP) chromium
	$(PY) -m pytest

clean:
	rm -rf $(VENV) .pytest_cache
