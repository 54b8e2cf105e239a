"""The discosql command, end to end in a subprocess."""

from __future__ import annotations

import csv
import io
import json
import struct
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

import discosql as ds

from . import oracle

KEYS = "sex,age,region,placesize"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "discosql", *args], capture_output=True, text=True, timeout=120
    )


def test_demo_reproduces_the_vignette() -> None:
    out = run("demo")
    assert out.returncode == 0, out.stderr
    assert "Synthesis 1 matches all 17 published synthpop values" in out.stdout
    assert "48.38" in out.stdout


def test_disclosure_formats() -> None:
    syn = oracle.synthetic_paths("s5")[:2]
    base = ["disclosure", oracle.original_path(), *syn, "--keys", KEYS, "--target", "depress"]
    table = run(*base)
    assert table.returncode == 0, table.stderr
    assert "Synthetic 2" in table.stdout
    as_json = json.loads(run(*base, "--format", "json").stdout)
    assert len(as_json) == 34
    disco = next(r for r in as_json if r["measure"] == "DiSCO" and r["synthesis"] == 1)
    assert round(disco["value"], 2) == 9.54
    rows = list(csv.DictReader(io.StringIO(run(*base, "--format", "csv").stdout)))
    assert len(rows) == 34
    assert {r["measure"] for r in rows} >= {"UiO", "repU", "DiSCO", "TCAP"}


def test_bad_input_is_one_line_and_exit_2() -> None:
    out = run(
        "disclosure",
        oracle.original_path(),
        oracle.original_path(),
        "--keys",
        "sex,agex",
        "--target",
        "depress",
    )
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "Traceback" not in out.stderr
    assert "key 'agex'" in lines[0]
    assert "did you mean 'age'" in lines[0]


def test_summary_every_format(tmp_path: Path) -> None:
    syn = oracle.synthetic_paths("s5")[:2]
    base = ["summary", oracle.original_path(), *syn, "--keys", KEYS, "--targets", "depress,workab"]
    table = run(*base)
    assert table.returncode == 0, table.stderr
    assert "Check  workab  level  NO" in table.stdout
    rows = json.loads(run(*base, "--format", "json").stdout)
    assert [r["target"] for r in rows] == ["depress", "workab"]
    assert rows[1]["npairs"] > 0
    as_csv = list(csv.DictReader(io.StringIO(run(*base, "--format", "csv").stdout)))
    assert [r["target"] for r in as_csv] == ["depress", "workab"]
    out = tmp_path / "summary.parquet"
    plot = tmp_path / "summary.png"
    done = run(*base, "--format", "parquet", "--out", str(out), "--plot", str(plot))
    assert done.returncode == 0, done.stderr
    assert pq.read_table(out).column("target").to_pylist() == ["depress", "workab"]
    png = plot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24])[0] > 600  # width in pixels


def test_summary_memory_limit_and_spill_directory(tmp_path: Path) -> None:
    syn = oracle.synthetic_paths("s5")[:1]
    base = ["summary", oracle.original_path(), *syn, "--keys", KEYS, "--targets", "depress,ls"]
    free = json.loads(run(*base, "--format", "json").stdout)
    spill = tmp_path / "spill"
    limited = run(*base, "--format", "json", "--memory-limit", "200MB", "--temp-dir", str(spill))
    assert limited.returncode == 0, limited.stderr
    assert json.loads(limited.stdout) == free
    wrong = run(*base, "--memory-limit", "1GB", "--engine", "postgresql://x@localhost/db")
    assert wrong.returncode != 0
    assert "--memory-limit and --temp-dir apply to DuckDB" in wrong.stderr


def test_summary_options_reach_the_api() -> None:
    syn = oracle.synthetic_paths("s5")[:1]
    out = run(
        "summary",
        oracle.original_path(),
        *syn,
        "--keys",
        KEYS,
        "--targets",
        "ls,workab",
        "--not-targetlevs",
        "ls=PLEASED",
        "--use-targets-na",
        "workab=false",
        "--format",
        "json",
    )
    assert out.returncode == 0, out.stderr
    rows = {r["target"]: r for r in json.loads(out.stdout)}
    alone = ds.disclosure(
        oracle.original_path(), syn, KEYS.split(","), "ls", not_targetlev="PLEASED"
    )
    assert rows["ls"]["attrib_syn"] == alone.value("DiSCO")


def test_parquet_needs_out() -> None:
    syn = oracle.synthetic_paths("s5")[0]
    out = run(
        "disclosure",
        oracle.original_path(),
        syn,
        "--keys",
        KEYS,
        "--target",
        "ls",
        "--format",
        "parquet",
    )
    assert out.returncode == 2
    assert "needs --out" in out.stderr
