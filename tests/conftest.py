"""Session-wide engines: a PostgreSQL server and a Spark session, started once, on demand.

Every test that uses the ``pg_dsn`` fixture (directly or through another fixture) is marked
``postgres``, every test that uses ``spark`` is marked ``spark``, every test that uses
``chromium`` (the system's browser) is marked ``browser``; the default run (pyproject's addopts)
deselects all three. ``python -m pytest -m ""`` runs everything, ``-m "postgres or spark or
browser"`` only the tests that need them. The engine markers and the fixtures behind them
come from the engine and script cases (tests/helpers/engines.py: ``server_markers``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import settings

from discosql.engines import duckdb as duckdb_engine
from discosql.sql import templates

from . import servers

if TYPE_CHECKING:  # imported when used: tests.helpers is assert-rewritten first (below)
    from .helpers.engines import Loaded, Started

# Every statement the tests render is parsed by sqlglot too (off at run time, for speed).
templates.CHECK_PARSE = True

# Under pytest-xdist each worker has its share of the cores: DuckDB's default, a thread per
# core in every worker, would run workers x cores threads (on 2 cores, 2 workers: the
# reference tests 20% slower). Tests that pass threads= (1 and 2: the same bits whatever
# the threads, tests/risk/test_risk.py) still get what they ask for.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
if _WORKERS > 1:
    duckdb_engine.DEFAULT_THREADS = max(1, (os.cpu_count() or 1) // _WORKERS)

# The shared helpers (tests/helpers/) assert too: their asserts are rewritten like a test
# module's, so a failure shows the values compared.
pytest.register_assert_rewrite("tests.helpers")

# Property tests against the brute-force references: 60 examples in the development loop, 500
# in CI (`pytest --hypothesis-profile=ci`, as .ci/run runs it), the brute-force references of
# synthpop's measures and of the three anonymity tests too, some fewer where one example is
# dear (tests/helpers/profiles.py); CI spreads them over the cores with pytest-xdist
# (docs/testing.md, "Where the time goes").
settings.register_profile("quick", max_examples=5, deadline=None)  # make test-fast
settings.register_profile("dev", max_examples=60, deadline=None)
settings.register_profile("ci", max_examples=500, deadline=None)
settings.load_profile("dev")

# marker -> the session fixtures that start what its tests need, beyond the engine cases'
# (tests/helpers/engines.py: server_markers)
OTHER_MARKERS = {
    "browser": ("chromium",),
    "anonymeter": ("anonymeter",),
}


# test modules whose every test goes beyond embedded DuckDB in this process (other engines,
# the duckdb shell, DataFusion, the documentation's pages): marked ``integration``, which
# `make test-fast` leaves out (the default run and CI keep them)
INTEGRATION_FILES = ("test_docs.py", "test_engines.py", "test_risk_engines.py")
INTEGRATION_WORDS = ("export", "shell", "datafusion", "sqlite", "spark", "postgres", "adbc")


def _integration(item: pytest.Item, case: Any) -> bool:
    from .helpers.engines import ScriptCase

    name = item.path.name
    if isinstance(case, ScriptCase):  # an @on_script_engines test: a shell, a server, ...
        return True
    if case is not None:  # an @on_engines test: integration on every engine but DuckDB's
        return case.name != "duckdb"
    return name in INTEGRATION_FILES or any(
        word in name or word in item.name.lower() for word in INTEGRATION_WORDS
    )


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    from .helpers.engines import EngineCase, ScriptCase, server_markers

    markers = {**server_markers(), **OTHER_MARKERS}
    wrong = []
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec is not None else {}
        case = params.get("engine_case", params.get("script_engine"))
        if not isinstance(case, EngineCase | ScriptCase):
            case = None
        if _integration(item, case):
            item.add_marker(pytest.mark.integration)
        if case is not None and case.server:  # started by the engine_case/script_engine fixture
            fixtures.add(case.server)
        for marker, started_by in markers.items():
            if fixtures & set(started_by):
                item.add_marker(getattr(pytest.mark, marker))
            elif item.get_closest_marker(marker) is not None:
                wrong.append(
                    f"{item.nodeid}: marked {marker} but uses none of the fixtures {started_by}"
                )
    if wrong:
        raise pytest.UsageError("\n".join(wrong))


@pytest.fixture
def engine_case(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Loaded]:
    """The engine of an ``@on_engines`` test (tests/helpers/engines.py), its server started;
    a user's connection it opened is checked and closed after the test."""
    from .helpers.engines import Loaded

    case = request.param
    server = request.getfixturevalue(case.server) if case.server else None
    loaded = Loaded(case, server, tmp_path)
    yield loaded
    loaded.close()


@pytest.fixture
def script_engine(request: pytest.FixtureRequest) -> Started:
    """The script engine of an ``@on_script_engines`` test (tests/helpers/engines.py), its
    server started."""
    from .helpers.engines import Started

    case = request.param
    return Started(case, request.getfixturevalue(case.server) if case.server else None)


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    with servers.postgres_server() as dsn:
        yield dsn


@pytest.fixture(scope="session")
def chromium() -> str:
    """The system's Chromium (Debian's package; .ci/run installs it), for the report's browser
    test."""
    import shutil

    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "Chromium is missing: apt-get install chromium (.ci/run installs it)"
    return found


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    session = servers.spark_session()
    yield session
    session.stop()


@pytest.fixture(scope="session")
def fakesnow() -> Iterator[None]:
    """fakesnow's Snowflake emulator patched into snowflake.connector (its own environment:
    fakesnow pins another sqlglot; .ci/run)."""
    import fakesnow

    with fakesnow.patch():
        yield


@pytest.fixture(scope="session")
def anonymeter() -> Any:
    """anonymeter 1.1, the reference implementation of the GDPR's three tests (its own
    environment: it pins numpy below 2; .ci/anonymeter)."""
    import anonymeter

    return anonymeter


@pytest.fixture(scope="session")
def spark_connect() -> Iterator[Any]:
    """A Spark Connect session on a local Connect server (the way Databricks serverless and
    SQL warehouses are reached)."""
    with servers.spark_connect_session() as session:
        yield session


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The labels of the data sets engines register during the test, in order (each
    registration counted: a CSV file is parsed once per registration)."""
    from discosql.engines import base

    labels: list[str] = []
    real_register = base.Engine.register_all

    def register_all(self: base.Engine, sources: list[Any], check: Any = None) -> Any:
        labels.extend(source.label for source in sources)
        return real_register(self, sources, check)

    monkeypatch.setattr(base.Engine, "register_all", register_all)
    return labels
