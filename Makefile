# The two commands of the README: `make serve` and `make test`. Both create the
# virtual environment on first use; `serve` installs the runtime requirements only,
# `test` (and the benchmarks) the development list on top of them, each from its lock
# (every package pinned, with hashes; `make lock` refreshes them from requirements*.txt).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check
RUNTIME := $(VENV)/.runtime-$(shell cat requirements.lock | cksum | cut -d' ' -f1)
DEV := $(VENV)/.dev-$(shell cat requirements-dev.lock | cksum | cut -d' ' -f1)
LOCK := $(VENV)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links --no-emit-trusted-host

.PHONY: install serve test screens lint bench bench-quick messages lock

$(PY):
	$(PYTHON) -m venv $(VENV)

$(RUNTIME): requirements.lock | $(PY)
	$(PIP) --require-hashes -r requirements.lock
	rm -f $(VENV)/.runtime-* $(VENV)/.installed-*
	touch $@

$(DEV): requirements-dev.lock | $(PY)
	$(PIP) --require-hashes -r requirements-dev.lock
	rm -f $(VENV)/.dev-* $(VENV)/.runtime-* $(VENV)/.installed-*
	touch $@ $(RUNTIME)  # the development list includes the runtime one

install: $(DEV)

# After a change to requirements*.txt: resolve, pin and hash everything again.
lock: $(DEV)
	$(LOCK) -o requirements.lock requirements.txt
	$(LOCK) -o requirements-dev.lock requirements-dev.txt

serve: $(RUNTIME)
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py serve $(ARGS)

lint: $(DEV)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

# Three workers on two cores (much of a test's time is spent waiting on its servers).
# Each module runs whole on one worker, so its server starts once; the longest modules
# are handed out first (LONGEST_FIRST in loreweaver/testing/fixtures.py).
TEST_WORKERS ?= 3

# Bytecode caches are written even where PYTHONDONTWRITEBYTECODE is set (they are
# ignored by git): the suites start some 250 processes, each of which would otherwise
# compile the project's hundred-odd modules again, and each worker its test modules.
test: lint
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n $(TEST_WORKERS) --dist loadscope --no-loadscope-reorder --durations=15 $(PYTEST_ARGS)

# The browser tests, leaving a screenshot of each screen they check in build/screens/.
screens: $(DEV)
	TRPG_TEST_SCREENS=1 PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n $(TEST_WORKERS) --dist loadscope \
		loreweaver/table loreweaver/console packs $(PYTEST_ARGS)

bench: $(DEV)
	$(PY) bench/fanout.py $(ARGS)
	$(PY) bench/replay.py
	$(PY) bench/dice.py
	$(PY) bench/command_lines.py
	$(PY) bench/packs.py
	$(PY) bench/turn.py
	$(PY) bench/media.py
	$(PY) bench/export.py
	$(PY) bench/archive.py
	$(PY) bench/capacity.py
	$(PY) bench/probes.py
	$(PY) bench/strangers.py
	$(PY) bench/connections.py
	$(PY) bench/soak.py

bench-quick: $(DEV)
	$(PY) bench/fanout.py --quick
	$(PY) bench/fanout.py --quick --mix
	$(PY) bench/replay.py --quick
	$(PY) bench/dice.py --quick
	$(PY) bench/command_lines.py --quick
	$(PY) bench/packs.py --quick
	$(PY) bench/turn.py --quick
	$(PY) bench/media.py --quick
	$(PY) bench/export.py --quick
	$(PY) bench/archive.py --quick
	$(PY) bench/probes.py --quick
	$(PY) bench/strangers.py --quick
	$(PY) bench/connections.py --quick
	$(PY) bench/soak.py --quick
	$(PY) bench/capacity.py --quick

# Refresh the Chinese catalog from the texts marked in the code, then compile it; the
# translations test names any text left without Chinese.
messages: $(DEV)
	$(PY) manage.py makemessages -l zh_Hans --no-obsolete --add-location=file
	$(PY) manage.py compilemessages -l zh_Hans --ignore=.venv
