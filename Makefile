# The two commands of the README: `make serve` and `make test`. Both create the
# virtual environment on first use; `serve` installs the runtime requirements only,
# `test` (and the benchmarks) the development list on top of them.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install --quiet --disable-pip-version-check
RUNTIME := $(VENV)/.runtime-$(shell cat requirements.txt | cksum | cut -d' ' -f1)
DEV := $(VENV)/.dev-$(shell cat requirements.txt requirements-dev.txt | cksum | cut -d' ' -f1)

.PHONY: install serve test lint bench bench-quick messages

$(PY):
	$(PYTHON) -m venv $(VENV)

$(RUNTIME): requirements.txt | $(PY)
	$(PIP) -r requirements.txt
	rm -f $(VENV)/.runtime-* $(VENV)/.installed-*
	touch $@

$(DEV): requirements.txt requirements-dev.txt | $(PY)
	$(PIP) -r requirements-dev.txt
	rm -f $(VENV)/.dev-* $(VENV)/.runtime-* $(VENV)/.installed-*
	touch $@ $(RUNTIME)  # the development list includes the runtime one

install: $(DEV)

serve: $(RUNTIME)
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py serve $(ARGS)

lint: $(DEV)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

test: lint
	$(PY) -m pytest --durations=15 $(PYTEST_ARGS)

bench: $(DEV)
	$(PY) bench/fanout.py $(ARGS)
	$(PY) bench/replay.py
	$(PY) bench/dice.py
	$(PY) bench/packs.py
	$(PY) bench/turn.py
	$(PY) bench/media.py
	$(PY) bench/export.py
	$(PY) bench/probes.py
	$(PY) bench/soak.py

bench-quick: $(DEV)
	$(PY) bench/fanout.py --quick
	$(PY) bench/replay.py --quick
	$(PY) bench/dice.py --quick
	$(PY) bench/packs.py --quick
	$(PY) bench/turn.py --quick
	$(PY) bench/media.py --quick
	$(PY) bench/export.py --quick
	$(PY) bench/probes.py --quick
	$(PY) bench/soak.py --quick

# Refresh the Chinese catalog from the texts marked in the code, then compile it; the
# translations test names any text left without Chinese.
messages: $(DEV)
	$(PY) manage.py makemessages -l zh_Hans --no-obsolete --add-location=file
	$(PY) manage.py compilemessages -l zh_Hans --ignore=.venv
