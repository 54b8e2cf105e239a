"""Connection secrets kept out of every text discosql writes: :func:`redact`.

A leaf module (the exception tree applies it to every message it carries). A connection string
may hold a password or a token in three forms, and each is masked as ``***``:

- a URL's user information: ``postgresql://analyst:secret@host/db`` (any scheme);
- a ``key=value`` pair, in a libpq string (``host=h password=secret``, quoted values too) or a
  URL's query (``snowflake://...?token=secret&...``, ``bigquery://p?credentials_base64=...``);
- a Python mapping's repr (``{'password': 'secret'}``), as a driver's keyword arguments print.

:func:`redact` also masks the values of a given connection string's secrets wherever they
appear, so that a driver's message quoting a fragment of the string (``invalid dsn: missing
"=" after "secret"``) loses it too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

MASK = "***"

# the keys whose values are secrets: libpq's, ODBC's and the warehouse drivers' (Snowflake,
# BigQuery, Databricks, Trino, ClickHouse); matched whole, in any case
SECRET_KEYS = (
    "password",
    "passwd",
    "pwd",
    "pass",
    "sslpassword",
    "passcode",
    "passphrase",
    "private_key",
    "private_key_passphrase",
    "private_key_file_pwd",
    "token",
    "access_token",
    "refresh_token",
    "id_token",
    "oauth_token",
    "client_secret",
    "secret",
    "api_key",
    "apikey",
    "credentials",
    "credentials_base64",
    "credentials_path",
    "sas_token",
)
_KEYS = "|".join(sorted(SECRET_KEYS, key=len, reverse=True))
# a value: quoted (libpq's '...' with \' escapes, or "..."), else up to a separator
_VALUE = r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\{[^}]*\}|[^\s&;'"]*"""
_PAIR = re.compile(rf"(?i)(?<![\w.-])({_KEYS})(\s*=\s*)({_VALUE})")
_MAPPING = re.compile(rf"""(?i)(['"])({_KEYS})\1(\s*:\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^\s:/@?#]*):([^\s@/?#]*)@")


def redact(text: str, known: Iterable[str] = ()) -> str:
    """``text`` with every connection secret masked (see the module docstring); ``known``: the
    values of secrets given to discosql, masked wherever they appear."""
    text = _USERINFO.sub(lambda m: f"{m.group(1)}{m.group(2)}:{MASK}@", text)
    text = _PAIR.sub(lambda m: f"{m.group(1)}{m.group(2)}{MASK}", text)
    text = _MAPPING.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(1)}{m.group(3)}'{MASK}'", text)
    for value in sorted(set(known), key=len, reverse=True):
        if len(value) >= 3:  # a shorter one would mask ordinary words of the message
            text = text.replace(value, MASK)
    return text


def secrets_in(conninfo: str) -> list[str]:
    """The secret values a connection string holds (its URL password, its secret keys' values,
    unquoted), for :func:`redact`'s ``known``."""
    found = [v for m in _USERINFO.finditer(conninfo) for v in (m.group(3), unquote(m.group(3)))]
    for m in _PAIR.finditer(conninfo):
        value = m.group(3)
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        found += [value, unquote(value)]
    return [v for v in found if v]
