"""Engines for the cross-engine tests: a PostgreSQL server on loopback and one Spark session.

Neither is optional: if PostgreSQL or Spark cannot start, the tests that need them fail (CI
installs both; see .ci/run). ``DISCOSQL_TEST_PG_DSN`` points the tests at an existing server
instead of starting one.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def _pg_bin() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if not candidates:
        raise RuntimeError(
            "PostgreSQL server binaries (initdb, pg_ctl) not found: install the Debian package "
            "'postgresql' (.ci/run does) or set DISCOSQL_TEST_PG_DSN"
        )
    return Path(candidates[-1]).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """Start a throw-away PostgreSQL cluster on 127.0.0.1; yield its DSN; stop and remove it."""
    if os.environ.get("DISCOSQL_TEST_PG_DSN"):
        yield os.environ["DISCOSQL_TEST_PG_DSN"]
        return
    bindir = _pg_bin()
    root = Path(tempfile.mkdtemp(prefix="discosql-pg-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    as_root = os.geteuid() == 0
    run_as: list[str] = ["runuser", "-u", "postgres", "--"] if as_root else []
    if as_root:  # initdb refuses to run as root: the cluster belongs to the postgres user
        shutil.chown(root, "postgres")
        shutil.chown(sock, "postgres")
        root.chmod(0o755)
    port = _free_port()
    user = "postgres" if as_root else os.environ.get("USER", "postgres")
    subprocess.run(
        [
            *run_as,
            str(bindir / "initdb"),
            "-D",
            str(data),
            "-A",
            "trust",
            "-U",
            user,
            "--encoding=UTF8",
            "--locale=C.UTF-8",
        ],
        check=True,
        capture_output=True,
    )
    opts = f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(
        [
            *run_as,
            str(bindir / "pg_ctl"),
            "-D",
            str(data),
            "-o",
            opts,
            "-w",
            "-t",
            "60",
            "-l",
            str(root / "log"),
            "start",
        ],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://{user}@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*run_as, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
            capture_output=True,
        )
        shutil.rmtree(root, ignore_errors=True)


# The tests' data are a few hundred rows: one shuffle partition, no adaptive re-planning and
# no whole-stage code generation (compiling each statement's Java cost more than running it)
# halve each Spark test's time; the results are Spark's all the same.


def spark_session() -> Any:
    """One local[2] SparkSession for the whole test run (start-up costs ~10 s)."""
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local[2]")
        .appName("discosql-tests")
        .config("spark.sql.shuffle.partitions", "1")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.memory", "2g")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.warehouse.dir", tempfile.mkdtemp(prefix="discosql-spark-"))
        .getOrCreate()
    )


@contextlib.contextmanager
def spark_connect_session() -> Iterator[Any]:
    """Start a local Spark Connect server (pyspark's own jars: SparkConnectServer, local[2])
    on a free loopback port; yield a remote session to it; stop both."""
    import pyspark
    from pyspark.sql.connect.session import SparkSession  # beside the tests' classic session

    home = Path(pyspark.__file__).parent
    port = _free_port()
    root = Path(tempfile.mkdtemp(prefix="discosql-spark-connect-"))
    conf = {
        "spark.connect.grpc.binding.address": "127.0.0.1",
        "spark.connect.grpc.binding.port": str(port),
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "1",
        "spark.sql.adaptive.enabled": "false",
        "spark.sql.codegen.wholeStage": "false",
        "spark.driver.memory": "2g",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.warehouse.dir": str(root / "warehouse"),
    }
    command = [
        str(home / "bin" / "spark-submit"),
        "--class",
        "org.apache.spark.sql.connect.service.SparkConnectServer",
        "--master",
        "local[2]",
        *(arg for k, v in conf.items() for arg in ("--conf", f"{k}={v}")),
    ]
    log = (root / "server.log").open("w")
    env = dict(os.environ, SPARK_HOME=str(home))
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        for _ in range(240):  # up to 2 minutes on a busy machine
            if server.poll() is not None:
                raise RuntimeError(
                    f"Spark Connect server exited: {(root / 'server.log').read_text()[-2000:]}"
                )
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        else:
            raise RuntimeError("Spark Connect server did not start within 2 minutes")
        session = SparkSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
        try:
            yield session
        finally:
            session.stop()
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        shutil.rmtree(root, ignore_errors=True)
