"""No password or token of a connection string reaches a message, a log line or a report.

Regression for a libpq key=value DSN (``host=... password=secret123``) refused by ``--engine``
with an error that printed the whole string, password included. The form is accepted now,
and every error, warning and CLI line is masked (``discosql.secrets.redact``).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import discosql as ds
from discosql.cli.main import main
from discosql.engines.factory import PostgresSpec, engine_spec
from discosql.errors import DiscoSQLWarning, EngineError, InputError
from discosql.secrets import redact, secrets_in

SECRET = "secret123"
DATA = Path(ds.__file__).parent / "data"


@pytest.mark.parametrize(
    "text",
    [
        f"postgresql://analyst:{SECRET}@db.example:5432/stats",
        f"snowflake://analyst:{SECRET}@acct/db?warehouse=w",
        f"host=h dbname=stats user=analyst password={SECRET}",
        f"host=h password = '{SECRET} with spaces' user=u",
        f"host=h sslpassword={SECRET} sslmode=require",
        f"snowflake://acct/db?authenticator=oauth&token={SECRET}&role=r",
        f"bigquery://project?credentials_base64={SECRET}",
        f"Driver={{x}};Server=s;UID=u;PWD={SECRET};",
        f"{{'user': 'u', 'password': '{SECRET}'}}",
        f'PASSWORD="{SECRET}" host=h',
        f"postgresql://u@h/db?password={SECRET}",
    ],
)
def test_redact_masks_every_form(text: str) -> None:
    assert SECRET not in redact(text)
    assert "***" in redact(text)


def test_redact_keeps_the_rest_and_masks_known_values() -> None:
    text = "host=h port=5432 dbname=stats user=analyst password=secret123"
    assert redact(text) == "host=h port=5432 dbname=stats user=analyst password=***"
    assert redact("postgresql://analyst@h/db") == "postgresql://analyst@h/db"
    # a driver quoting a fragment of the string without its key
    said = 'invalid dsn: missing "=" after "secret123" in connection info string'
    assert SECRET not in redact(said, secrets_in(text))
    assert secrets_in(f"postgresql://u:{SECRET}%21@h/db") == [f"{SECRET}%21", f"{SECRET}!"]


def test_every_error_and_warning_is_masked() -> None:
    assert SECRET not in str(InputError(f"engine: bad password={SECRET}"))
    assert SECRET not in str(InputError([f"a password={SECRET}", "b"]))
    assert SECRET not in InputError(f"password={SECRET}").problems[0]
    assert SECRET not in str(EngineError(f"failed: postgresql://u:{SECRET}@h/db"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn(f"token={SECRET}", DiscoSQLWarning, stacklevel=1)
    assert SECRET not in str(caught[0].message)


def test_a_key_value_dsn_is_a_postgres_engine() -> None:
    spec = engine_spec(f"host=127.0.0.1 port=5432 dbname=stats user=u password={SECRET}")
    assert isinstance(spec, PostgresSpec)
    with pytest.raises(InputError, match="is not an engine") as e:
        engine_spec(f"hots=127.0.0.1 password={SECRET}")
    assert SECRET not in str(e.value)


@pytest.mark.parametrize(
    "dsn",
    [
        # nothing listens on port 1: libpq refuses the connection
        f"host=127.0.0.1 port=1 dbname=stats user=analyst password={SECRET}",
        f"postgresql://analyst:{SECRET}@127.0.0.1:1/stats",
        # libpq cannot parse these, and its message quotes the string's fragments
        f"host=127.0.0.1 port=1 password={SECRET} {SECRET}",
        f"host=127.0.0.1 port=1 password='{SECRET}",
        f"postgresql://u:{SECRET}@127.0.0.1:x/db?bogus=1",
        f"hots=x password={SECRET}",
    ],
)
def test_the_cli_never_prints_a_password(dsn: str, capsys: pytest.CaptureFixture[str]) -> None:
    orig = str(DATA / "sd2011.parquet")
    code = main(["risk", orig, "--keys", "sex,age", "--engine", dsn])
    out, err = capsys.readouterr()
    assert code == 2
    assert "discosql: error:" in err
    assert SECRET not in out + err


def test_argparse_errors_never_print_a_password(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["risk", "x.csv", "--keys", "a", "--bogus", f"password={SECRET}"])
    assert SECRET not in capsys.readouterr().err


@pytest.mark.postgres
def test_a_key_value_dsn_runs_and_its_errors_are_masked(
    pg_dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    # the test server trusts loopback, so the password is accepted whatever it is
    conninfo = make_conninfo(**{**conninfo_to_dict(pg_dsn), "password": SECRET})
    assert SECRET in conninfo
    assert not conninfo.startswith("postgresql://")

    with psycopg.connect(pg_dsn, autocommit=True) as con:
        con.execute("DROP TABLE IF EXISTS secrets_t")
        con.execute(
            "CREATE TABLE secrets_t AS SELECT g % 3 AS a, g % 5 AS b FROM generate_series(1, 40) g"
        )
    try:
        with pytest.warns(ds.DiscoSQLWarning, match="give id="):  # rows in ctid order
            result = ds.risk("secrets_t", keys=["a", "b"], engine=conninfo)
        assert result.records is not None
        assert result.records.num_rows == 40
        with pytest.raises(InputError) as e:
            ds.risk("no_such_table", keys=["a"], engine=conninfo)
        assert SECRET not in str(e.value)
        code = main(["risk", "no_such_table", "--keys", "a", "--engine", conninfo])
        assert code == 2
        assert SECRET not in "".join(capsys.readouterr())
    finally:
        with psycopg.connect(pg_dsn, autocommit=True) as con:
            con.execute("DROP TABLE secrets_t")
