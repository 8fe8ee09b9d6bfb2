# The two commands of the README: `make serve` and `make test`. Both create the
# virtual environment and install the pinned requirements on first use.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat requirements.txt requirements-dev.txt | cksum | cut -d' ' -f1)

.PHONY: install serve test lint bench bench-quick messages

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

serve: $(STAMP)
	$(PY) manage.py migrate --noinput -v0
	$(PY) manage.py serve $(ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

test: lint
	$(PY) -m pytest --durations=15 $(PYTEST_ARGS)

bench: $(STAMP)
	$(PY) bench/fanout.py $(ARGS)
	$(PY) bench/replay.py
	$(PY) bench/dice.py
	$(PY) bench/packs.py
	$(PY) bench/turn.py
	$(PY) bench/media.py
	$(PY) bench/export.py
	$(PY) bench/probes.py
	$(PY) bench/soak.py

bench-quick: $(STAMP)
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
messages: $(STAMP)
	$(PY) manage.py makemessages -l zh_Hans --no-obsolete --add-location=file
	$(PY) manage.py compilemessages -l zh_Hans --ignore=.venv
