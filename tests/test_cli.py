"""The discosql command: main() in-process (stdout, stderr and exit code as the command gives
them), and one end-to-end run of ``python -m discosql`` in a subprocess."""

from __future__ import annotations

import csv
import io
import json
import re
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pyarrow.parquet as pq
import pytest

import discosql as ds
from discosql.cli.main import main

from . import oracle

KEYS = "sex,age,region,placesize"


class Done(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


Run = Callable[..., Done]


@pytest.fixture
def run(capsys: pytest.CaptureFixture[str]) -> Run:
    """``discosql ARGS...`` in this process: its exit code and what it printed."""

    def run(*args: str) -> Done:
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as e:  # argparse rejects the command line
            code = e.code if isinstance(e.code, int) else int(e.code is not None)
        out = capsys.readouterr()
        return Done(code, out.out, out.err)

    return run


@pytest.mark.slow
def test_demo_reproduces_the_vignette() -> None:
    """`python -m discosql demo` end to end in a fresh interpreter (the one subprocess here)."""
    out = subprocess.run(
        [sys.executable, "-m", "discosql", "demo"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "Synthesis 1 matches all 17 published synthpop values" in out.stdout
    assert "48.38" in out.stdout


def test_disclosure_formats(run: Run) -> None:
    syn = oracle.synthetic_paths("s5")[:2]
    base = ["disclosure", oracle.original_path(), *syn, "--keys", KEYS, "--target", "depress"]
    table = run(*base)
    assert table.returncode == 0, table.stderr
    assert "Synthetic 2" in table.stdout
    as_json = json.loads(run(*base, "--format", "json").stdout)
    assert len(as_json) == 2 * 18  # synthpop's 17 measures and TCAP_little per synthesis
    disco = next(r for r in as_json if r["measure"] == "DiSCO" and r["synthesis"] == 1)
    assert round(disco["value"], 2) == 9.54
    rows = list(csv.DictReader(io.StringIO(run(*base, "--format", "csv").stdout)))
    assert len(rows) == 2 * 18
    assert {r["measure"] for r in rows} >= {"UiO", "repU", "DiSCO", "TCAP", "TCAP_little"}
    tau = run(*base, "--tau", "0.5,1", "--table", "disco_tau", "--format", "json")
    assert tau.returncode == 0, tau.stderr
    at = [(r["synthesis"], r["tau"], round(r["DiSCO"], 2)) for r in json.loads(tau.stdout)]
    assert at[:2] == [(1, 0.5, 17.46), (1, 1.0, 9.54)]  # DiSCO(1) = DiSCO
    bad = run(*base, "--tau", "0.5,2")
    assert bad.returncode == 2
    assert "tau" in bad.stderr
    assert "[0, 1]" in bad.stderr


def test_bad_input_is_one_line_and_exit_2(run: Run) -> None:
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
    assert len(lines) == 2  # one problem a line: the original's, the synthetic data's
    assert "Traceback" not in out.stderr
    assert "key 'agex': not a column of the original data" in lines[0]
    assert "key 'agex': not a column of the synthetic data" in lines[1]
    assert all("did you mean 'age'" in line for line in lines)


def test_summary_every_format(run: Run, tmp_path: Path) -> None:
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


def test_summary_memory_limit_and_spill_directory(run: Run, tmp_path: Path) -> None:
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


def test_summary_options_reach_the_api(run: Run) -> None:
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


def test_parquet_needs_out(run: Run) -> None:
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


def test_output_flags_are_checked_before_the_data_are_read(run: Run, tmp_path: Path) -> None:
    """A missing data file would be the first error once the data are read: the output flags'
    problems come first, all of them, one line each."""
    missing = str(tmp_path / "nowhere.parquet")
    out = run(
        "summary",
        missing,
        missing,
        "--keys",
        KEYS,
        "--format",
        "parquet",
        "--plot",
        str(tmp_path / "plot.txt"),
        "--out",
        str(tmp_path / "no" / "dir" / "s.parquet"),
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 2, lines
    assert all(line.startswith("discosql: error: ") for line in lines)
    assert "--out: the directory" in lines[0]
    assert "does not exist" in lines[0]
    assert "--plot: cannot tell the image format of" in lines[1]
    assert "nowhere" not in out.stderr  # the data were not looked at
    out = run(
        "disclosure", missing, missing, "--keys", KEYS, "--target", "ls", "--format", "parquet"
    )
    assert out.stderr.strip().splitlines() == [
        "discosql: error: --format parquet: needs --out FILE (Parquet is not written to stdout)"
    ]


def test_each_problem_on_its_own_line(run: Run) -> None:
    out = run(
        "disclosure",
        oracle.original_path(),
        oracle.original_path(),
        "--keys",
        "sexx,agex",
        "--target",
        "depresss",
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 6, lines  # three columns missing from two data sets
    assert all(line.startswith("discosql: error: ") for line in lines)
    assert sorted(line.split("'")[1] for line in lines) == sorted(["sexx", "agex", "depresss"] * 2)


def test_warnings_and_internal_errors_are_one_line(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow as pa

    empty = tmp_path / "empty.parquet"
    pq.write_table(
        pa.table({"a": pa.array([], pa.string()), "t": pa.array([], pa.string())}), empty
    )
    full = tmp_path / "full.parquet"
    pq.write_table(pa.table({"a": ["x", "y"], "t": ["p", "q"]}), full)
    out = run("disclosure", str(full), str(empty), "--keys", "a", "--target", "t")
    assert out.returncode == 0, out.stderr
    said = [line for line in out.stderr.splitlines() if not line.startswith("discosql: working")]
    assert said[0].startswith("discosql: warning: synthetic: the data set has no rows")
    assert "DiscoSQLWarning" not in out.stderr

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr("discosql.measure.disclosure.disclosure", broken)
    out = run("disclosure", str(full), str(full), "--keys", "a", "--target", "t")
    assert out.returncode == 1
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("discosql: internal error: ZeroDivisionError: a bug (the full")
    path = line.split("traceback is in ")[1].split(";")[0]
    assert "Traceback" in Path(path).read_text()
    with pytest.raises(ZeroDivisionError):
        main(["disclosure", str(full), str(full), "--keys", "a", "--target", "t", "--debug"])


def test_errors_speak_in_flags(run: Run, tmp_path: Path) -> None:
    """Every error the CLI prints names its flags and values, never the Python API's keywords
    (overwrite=True, out=, None)."""
    data = Path(ds.__file__).parent / "data"
    o = str(data / "sd2011.parquet")
    s1, s2 = str(data / "syn_1.parquet"), str(data / "syn_2.parquet")
    existing = tmp_path / "prot.csv"
    existing.write_text("x\n")
    database = tmp_path / "out.duckdb"
    cases = [
        (
            ["sdc", o, s1, "--keys", KEYS, "--rm-replicated-uniques", "--out", str(existing)],
            "--out: ",
            "pass --overwrite",
        ),
        (
            [
                "sdc",
                o,
                s1,
                "--keys",
                KEYS,
                "--out",
                str(existing),
                "--out-table",
                "t",
                "--overwrite",
            ],
            "--out-table: ",
            "--out FILE.duckdb",
        ),
        (
            [
                "sdc",
                o,
                s1,
                s2,
                "--keys",
                KEYS,
                "--prefix",
                "p_",
                "--measure",
                "depress",
                "--out",
                str(tmp_path / "p_{synthesis}.parquet"),
            ],
            "--measure: ",
            "drop --out",
        ),
        (["disclosure", o, s1, "--keys", "sex,agee", "--target", "depress"], "key 'agee'", ""),
        (["summary", o, s1, "--keys", KEYS, "--threads", "0"], "--threads", "positive"),
        (
            [
                "report",
                o,
                s1,
                "--keys",
                KEYS,
                "--min-count",
                "0",
                "--out",
                str(tmp_path / "r.html"),
            ],
            "--min-count: ",
            "",
        ),
    ]
    run("sdc", o, s1, "--keys", KEYS, "--rm-replicated-uniques", "--out", str(database))
    cases.append(
        (
            ["sdc", o, s1, "--keys", KEYS, "--rm-replicated-uniques", "--out", str(database)],
            "--out-table: ",
            "pass --overwrite",
        )
    )
    for argv, flag, words in cases:
        done = run(*argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert flag in done.stderr, (argv, done.stderr)
        assert words in done.stderr, (argv, done.stderr)
        for python in ("=True", "=False", "None", "overwrite=", "out=", "out_table", "min_count"):
            assert python not in done.stderr, (argv, python, done.stderr)


def test_csv_writes_missing_numbers_as_empty_fields(run: Run, tmp_path: Path) -> None:
    """A sweep has NaN measures (mean_denom of a subset with no DiSCO cell): CSV
    leaves those fields empty, which R, pandas and DuckDB read as missing; --worst names its
    number column after the measure."""
    data = Path(ds.__file__).parent / "data"
    o, s1 = str(data / "sd2011.parquet"), str(data / "syn_1.parquet")
    out = tmp_path / "sweep.csv"
    done = run(
        "sweep", o, s1, "--keys", KEYS, "--targets", "depress", "--format", "csv", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert "nan" not in text.lower()
    rows = list(csv.DictReader(io.StringIO(text)))
    swept = ds.key_sweep(o, s1, KEYS.split(","), ["depress"])
    nans = sum(1 for v in swept.table.column("mean_denom").to_pylist() if v != v)
    assert nans > 0  # the case this test is about
    assert sum(1 for r in rows if r["mean_denom"] == "") == nans
    done = run(
        "sweep", o, s1, "--keys", KEYS, "--targets", "depress", "--worst", "2", "--format", "csv"
    )
    header = done.stdout.splitlines()[0]
    assert header == '"target","keys","n_keys","DiSCO_mean"'


def test_synthpop_flag(run: Run, tmp_path: Path) -> None:
    """--synthpop: `uniques` takes the release's denominators (rows 3-4 of the original's n
    records with 1.9-3) and says which; `sdc` removes the same records with either and its
    script states the release; `report` takes it only with --sdc."""
    data = Path(ds.__file__).parent / "data"
    o = str(data / "sd2011.parquet")
    shorter = tmp_path / "shorter.parquet"  # k = 3000, n = 5000
    pq.write_table(pq.read_table(data / "syn_1.parquet").slice(0, 3000), shorter)
    s = str(shorter)
    uniques = ["uniques", o, s, "--keys", KEYS]
    new = run(*uniques, "--synthpop", "1.9-3", "--format", "json")
    assert new.returncode == 0, new.stderr
    rows = json.loads(new.stdout)
    assert [r["from_total"] for r in rows] == [5000, 3000, 5000, 5000]
    api = ds.replicated_uniques(o, s, KEYS.split(","), synthpop="1.9-3")
    assert rows == api.to_dict()["table"]
    default = json.loads(run(*uniques, "--format", "json").stdout)
    assert [r["from_total"] for r in default] == [5000, 3000, 3000, 3000]
    text = run(*uniques, "--synthpop", "1.9-3").stdout
    assert "synthpop 1.9-3: synthetic uniques in original and replicated uniques are % of " in text
    assert "Replicated uniques" in text
    bad = run(*uniques, "--synthpop", "1.9")
    assert bad.returncode == 2
    assert "--synthpop: invalid choice: '1.9'" in bad.stderr
    protect = ["sdc", o, s, "--keys", KEYS, "--rm-replicated-uniques"]
    assert run(*protect, "--synthpop", "1.9-3").stdout == run(*protect).stdout
    script = tmp_path / "sdc.sql"
    done = run(*protect, "--synthpop", "1.9-3", "--sql", str(script), "--out-table", "safe")
    assert done.returncode == 0, done.stderr
    assert "-- synthpop 1.9-3 (its sdc() removes the same records" in script.read_text()
    report = ["report", o, s, "--keys", KEYS, "--targets", "depress"]
    done = run(*report, "--synthpop", "1.9-3", "--out", str(tmp_path / "r.html"))
    assert done.returncode == 2
    assert "--synthpop: only with --sdc" in done.stderr
    assert not (tmp_path / "r.html").exists()


def test_sdc_dry_run_counts_and_writes_nothing(run: Run, tmp_path: Path) -> None:
    """sdc without --out (or with --dry-run) prints the counts a real run removes and recodes,
    and writes nothing."""
    data = Path(ds.__file__).parent / "data"
    o, s1, s2 = (str(data / f) for f in ("sd2011.parquet", "syn_1.parquet", "syn_2.parquet"))
    flags = ["--keys", KEYS, "--rm-replicated-uniques", "--recode", "age=20,80"]
    real = ds.sdc(
        o,
        [s1, s2],
        KEYS.split(","),
        rm_replicated_uniques=True,
        recode_vars=["age"],
        bottom_top_coding=[(20, 80)],
    )
    for extra in ([], ["--out", str(tmp_path / "p_{synthesis}.parquet"), "--dry-run"]):
        done = run("sdc", o, s1, s2, *flags, *extra)
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("Would remove")
        assert done.stdout.rstrip().endswith("Nothing written (a dry run).")
        for r in real.removed.to_pylist():
            assert re.search(rf"{r['synthesis']}\s+{r['reason']}\s+{r['rows']}\s", done.stdout)
        for r in real.recoded.to_pylist():
            line = rf"{r['synthesis']}\s+age\s+{r['bottom_coded']}\s+{r['top_coded']}\n"
            assert re.search(line, done.stdout)
    assert list(tmp_path.iterdir()) == []
    dry = ds.sdc(
        o,
        [s1, s2],
        KEYS.split(","),
        rm_replicated_uniques=True,
        recode_vars=["age"],
        bottom_top_coding=[(20, 80)],
        dry_run=True,
    )
    assert dry.removed.equals(real.removed)
    assert dry.recoded.equals(real.recoded)
    assert dry.synthetic == []


def test_one_rule_for_existing_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 36 (m5, m6): every command refuses an existing output without --overwrite, before
    any data is read, says what it wrote, and report --out FILE.pdf is refused in one line."""
    from discosql.cli.main import main

    o, s1 = oracle.original_path(), oracle.synthetic_paths("s5")[0]
    out = tmp_path / "s.csv"
    base = ["summary", o, s1, "--keys", KEYS, "--targets", "depress", "--format", "csv"]
    assert main([*base, "--out", str(out)]) == 0
    assert capsys.readouterr().err == f"discosql: wrote {out}\n"
    assert main([*base, "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"discosql: error: --out: {str(out)!r} exists; pass --overwrite to replace it\n"
    )
    assert main([*base, "--out", str(out), "--overwrite"]) == 0
    capsys.readouterr()
    pdf = [
        "report",
        o,
        s1,
        "--keys",
        KEYS,
        "--targets",
        "depress",
        "--out",
        str(tmp_path / "r.pdf"),
    ]
    assert main(pdf) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert err[0].startswith("discosql: error: --out: the report is HTML")
    assert not (tmp_path / "r.pdf").exists()
