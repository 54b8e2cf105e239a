"""The wheel carries the templates and the demo data: install it, run the demo elsewhere."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_wheel_installs_and_runs_the_demo(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(dist)],
        check=True,
        timeout=300,
    )
    wheel = next(dist.glob("discosql-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    templates = {p.relative_to(ROOT).as_posix() for p in (ROOT / "sql_templates").rglob("*.j2")}
    assert templates
    assert {f"discosql/{t}" for t in templates} <= names
    assert "discosql/data/sd2011.parquet" in names
    html = {p.relative_to(ROOT).as_posix() for p in (ROOT / "discosql").rglob("html/*.j2")}
    assert {"discosql/core/html/macros.html.j2", "discosql/report/html/report.html.j2"} <= html
    assert html <= names  # the views' and the report's templates

    # a fresh venv with the wheel, installed by this environment's pip (no ensurepip in the new
    # venv); the dependencies come from this environment via a .pth file
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    py = env_dir / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(py),
            "install",
            "-q",
            "--no-deps",
            str(wheel),
        ],
        check=True,
    )
    site = subprocess.run(
        [py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = subprocess.run(
        [env_dir / "bin" / "discosql", "demo"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "Synthesis 1 matches all 17 published synthpop values" in out.stdout
    report = subprocess.run(
        [
            py,
            "-c",
            "import discosql as ds, pathlib; d = pathlib.Path(ds.__file__).parent / "
            "'data'; r = ds.report(str(d / 'sd2011.parquet'), str(d / 'syn_1.parquet'), "
            "['sex', 'age'], ['depress']); print(r.html[:15])",
        ],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert report.returncode == 0, report.stderr
    assert report.stdout.startswith("<!DOCTYPE html>")
    where = subprocess.run(
        [py, "-c", "import discosql; print(discosql.__file__)"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(env_dir) in where
