"""Session-wide engines: a PostgreSQL server and a Spark session, started once, on demand."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from . import servers


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    with servers.postgres_server() as dsn:
        yield dsn


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    session = servers.spark_session()
    yield session
    session.stop()
