"""Outputs are complete or absent: the CLI killed (SIGKILL, SIGINT) at several moments of an
sdc run that writes a CSV file of 2M records, and a write that fails for lack of space, leave
the final path holding the previous file unchanged or the complete output (its row count and
checksum those of a run that was left alone), never part of one."""

from __future__ import annotations

import hashlib
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from discosql.core.files import TEMP_MARK, atomic_paths, write_text

N = 2_000_000
PREVIOUS = "an earlier release, which must survive a failed run\n"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An original and a synthesis of N records (3 keys, a float), as Parquet."""
    work = tmp_path_factory.mktemp("atomic")
    rng = np.random.default_rng(1)
    for name in ("original", "synthetic"):
        columns = {k: rng.integers(0, 60, N) for k in ("a", "b", "c")}
        pq.write_table(pa.table({**columns, "x": rng.random(N)}), work / f"{name}.parquet")
    return work


def _argv(data: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "discosql",
        "sdc",
        str(data / "original.parquet"),
        str(data / "synthetic.parquet"),
        "--keys",
        "a,b,c",
        "--rm-replicated-uniques",
        "--threads",
        "2",
        "--out",
        str(out),
        "--overwrite",
    ]


def _digest(path: Path) -> tuple[int, str]:
    body = path.read_bytes()
    return body.count(b"\n"), hashlib.sha256(body).hexdigest()


@pytest.fixture(scope="module")
def complete(data: Path) -> tuple[tuple[int, str], float]:
    """The output of a run left alone (rows, checksum) and how long the run took."""
    out = data / "reference.csv"
    start = time.monotonic()
    subprocess.run(_argv(data, out), check=True, capture_output=True)
    return _digest(out), time.monotonic() - start


def _leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if TEMP_MARK in p.name]


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_a_killed_run_leaves_the_old_file_or_the_whole_new_one(
    data: Path, complete: tuple[tuple[int, str], float], tmp_path: Path, sig: int
) -> None:
    reference, seconds = complete
    outcomes = set()
    for fraction, earlier in [(f, e) for f in (0.0, 0.2, 0.4, 0.6, 0.8, 1.5) for e in (1, 0)]:
        out = tmp_path / f"prot_{fraction}_{earlier}.csv"
        if earlier:  # (DuckDB's COPY guards an existing file itself, a new one it does not)
            out.write_text(PREVIOUS)
        proc = subprocess.Popen(
            _argv(data, out), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        if sig == signal.SIGINT:  # Ctrl-C once the run reads the data, however slow the start
            _wait_until_it_reads(proc, data / "original.parquet", timeout=10 * seconds + 30)
        time.sleep(seconds * fraction)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=300)
        if not out.exists() or out.read_text(errors="replace") == PREVIOUS:
            assert out.exists() == bool(earlier)
            outcomes.add("previous")
            assert proc.returncode != 0, err
            if sig == signal.SIGINT:  # Ctrl-C during the run: one line (after any progress
                assert proc.returncode == 130, err  # line a slow run printed), exit 130
                line = "discosql: interrupted (every output is complete or absent)"
                assert _without_progress(err) == [line], err
        else:  # the run had written its output (a late Ctrl-C may still end Python's exit)
            assert _digest(out) == reference, (fraction, proc.returncode, err)
            outcomes.add("complete")
        if sig == signal.SIGINT:
            assert _leftovers(tmp_path) == []  # nothing left behind
            assert "Traceback" not in err
    assert "previous" in outcomes  # the early signals landed during the run


def _wait_until_it_reads(proc: subprocess.Popen[str], path: Path, timeout: float) -> None:
    """Until the process has ``path`` open (it is then inside the CLI's run, past Python's
    start-up and the imports, whatever the machine's load), or has ended."""
    target = str(path.resolve())
    deadline = time.monotonic() + timeout
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            fds = os.listdir(f"/proc/{proc.pid}/fd")
            links = {os.readlink(f"/proc/{proc.pid}/fd/{fd}") for fd in fds}
        except OSError:  # the process ended, or an fd closed while it was read
            links = set()
        if target in links:
            return
        time.sleep(0.0005)
    assert proc.poll() is not None, f"the run never opened {target} in {timeout:.0f} s"


def _without_progress(err: str) -> list[str]:
    """stderr's lines without the progress lines a run prints once it takes a while."""
    progress = ("discosql: working (", "discosql: target ")
    return [line for line in err.strip().splitlines() if not line.startswith(progress)]


def test_a_write_that_runs_out_of_space_leaves_nothing(data: Path, tmp_path: Path) -> None:
    """A file-size limit (as a full disk would) stops the write: the run fails with one line,
    the earlier file is unchanged and no temporary file is left."""
    out = tmp_path / "prot.csv"
    out.write_text(PREVIOUS)

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails (EFBIG) instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))

    proc = subprocess.run(_argv(data, out), capture_output=True, text=True, preexec_fn=limit)
    assert proc.returncode == 1, proc.stderr
    assert _without_progress(proc.stderr)[0].startswith("discosql: error:"), proc.stderr
    assert "Traceback" not in proc.stderr
    assert out.read_text() == PREVIOUS
    assert _leftovers(tmp_path) == []


def test_atomic_paths_are_all_or_nothing(tmp_path: Path) -> None:
    finals = [tmp_path / "a.csv", tmp_path / "b.parquet"]
    finals[0].write_text("old")

    def fail() -> None:
        with atomic_paths(finals) as temps:
            assert [t.suffix for t in temps] == [".csv", ".parquet"]  # formats by the ending
            assert all(t.parent == tmp_path and t.name.startswith(".") for t in temps)
            for t in temps:
                t.write_text("new")
            raise RuntimeError("a failure after both were written")

    with pytest.raises(RuntimeError):
        fail()
    assert finals[0].read_text() == "old"
    assert not finals[1].exists()
    assert _leftovers(tmp_path) == []
    with atomic_paths(finals) as temps:
        for t in temps:
            t.write_text("new")
    assert [f.read_text() for f in finals] == ["new", "new"]
    write_text(tmp_path / "c.txt", "ünïcode")
    assert (tmp_path / "c.txt").read_text(encoding="utf-8") == "ünïcode"
    assert sorted(os.listdir(tmp_path)) == ["a.csv", "b.parquet", "c.txt"]


def test_each_run_stages_its_output_under_a_name_of_its_own(tmp_path: Path) -> None:
    """Two runs writing the same output table in one database stage it under different
    names (the staging table lives in the user's schema), and leave no staging table."""
    import duckdb

    from discosql.engines.duckdb import DuckDBEngine

    con = duckdb.connect(str(tmp_path / "shared.duckdb"))
    created: list[str] = []
    engines = [DuckDBEngine(connection=con), DuckDBEngine(connection=con)]
    assert engines[0].run_id != engines[1].run_id
    for i, eng in enumerate(engines):
        run = eng._execute

        def spy(sql: str, params: dict[str, Any], run: Any = run) -> None:
            if sql.startswith("CREATE TABLE"):
                created.append(sql.split()[2])
            run(sql, params)

        eng._execute = spy  # type: ignore[method-assign]
        assert eng.write_table("out", None, f"SELECT {i} AS x", {}, "test") == 1
        eng.close()
    assert len(set(created)) == 2, created
    assert con.execute("SELECT x FROM out").fetchall() == [(1,)]
    tables = con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
    assert tables == [("out",)]
    con.close()
