# Developer loops (docs/testing.md says what each runs and how long it takes). They use the
# checkout's .venv: `make install` makes it.
PY ?= .venv/bin/python
PYTEST = $(PY) -m pytest -n auto --dist loadfile
# the default run's deselection (pyproject's addopts), without the wheel build, the fresh
# interpreters and the longest hypothesis runs
FAST = not postgres and not spark and not browser and not snowflake and not anonymeter \
	and not slow and not integration

.PHONY: install test-fast test test-engines test-snowflake test-anonymeter lint ci

install:
	python3 -m venv .venv && .venv/bin/pip install -e '.[dev]'

# the layout, template and unit tests: 5 examples per property test, no server
test-fast:
	$(PY) -m pytest -n auto --dist load -q -x --hypothesis-profile=quick -m "$(FAST)" \
		--durations=10

# the README's command 2: every test that needs no server, as CI runs it
test:
	$(PYTEST) --hypothesis-profile=ci --durations=25

# the README's command 3: PostgreSQL, Spark (classic and Connect) and Chromium
test-engines:
	$(PYTEST) -m "postgres or spark or browser" --durations=25

test-snowflake:
	.ci/snowflake

test-anonymeter:
	.ci/anonymeter

lint:
	$(PY) -m ruff check discosql tests benchmarks
	$(PY) -m ruff format --check discosql tests benchmarks
	$(PY) -m mypy discosql

ci:
	.ci/run
