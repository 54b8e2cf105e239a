"""The ``discosql`` command line's arguments: one subcommand per API function, every option a
flag (its help names the synthpop argument); the flag values' parsers and the options
several subcommands share are in ``options``."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, NoReturn

from ..core.results import ATTRIB_MEASURES, IDENT_MEASURES, TABLE_NAMES
from ..secrets import redact
from ..sql.dialects import DEFAULT, DIALECTS, ORDERED_DIALECTS
from . import linkability, matches, singling_out
from .args import csv_list
from .options import (
    UNTRIED,
    add_anonymity_script,
    add_common,
    add_engine_options,
    add_output_options,
    add_script_options,
    add_synthpop,
    add_target_options,
    add_targets_options,
)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors are one line that says where the help is (the
    whole usage of a subcommand is 10 to 15 lines before the one that matters), and quotes no
    connection secret of the arguments it names."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, redact(f"{self.prog}: error: {message} (usage: {self.prog} --help)\n"))


def _add_disclosure(sub: Any) -> None:
    d = sub.add_parser("disclosure", help="all measures for one target (synthpop disclosure())")
    add_common(d)
    add_target_options(d)
    d.add_argument(
        "--table",
        choices=TABLE_NAMES,
        default="measures",
        help="which table --format json/csv/parquet writes (default: measures)",
    )


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="discosql",
        description="Disclosure risk of synthetic data (synthpop's measures), computed in SQL.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="synthpop's published example on the bundled SD2011 data")

    _add_disclosure(sub)

    q = sub.add_parser(
        "sql", help="export the measures as one SQL script (duckdb shell or a warehouse)"
    )
    add_common(q, outputs=False)
    add_target_options(q)
    q.add_argument(
        "--dialect",
        default=DEFAULT,
        choices=DIALECTS,
        help=f"SQL dialect of the script (default: duckdb, which reads the files named{UNTRIED})",
    )
    q.add_argument(
        "--original-table",
        default=None,
        metavar="NAME",
        help="table the script reads as the original data (default: the file, duckdb only)",
    )
    q.add_argument(
        "--synthetic-tables",
        type=csv_list,
        default=None,
        metavar="NAME[,NAME...]",
        help="tables the script reads as the syntheses, one per synthetic data set",
    )
    q.add_argument("--out", type=Path, default=None, help="write the script to FILE (not stdout)")

    u = sub.add_parser(
        "uniques", help="uniques and replicated uniques (synthpop replicated.uniques())"
    )
    add_common(u, measures=False)
    add_synthpop(
        u,
        "whose denominators to take: 1.9-2 divides synthetic uniques in original "
        "and replicated uniques by the synthesis's records, 1.9-3 by the original's",
    )

    c = sub.add_parser("sdc", help="a safer synthesis: recode, remove uniques (synthpop sdc())")
    add_common(c, outputs=False, measures=False)
    add_synthpop(c, "to record; sdc() removes the same records in both")
    c.add_argument(
        "--rm-replicated-uniques",
        action="store_true",
        help="(rm.replicated.uniques) remove records unique in the synthesis and in the original",
    )
    c.add_argument(
        "--rm-uniques-in-orig",
        action="store_true",
        help="(rm.uniques.in.orig) remove records unique in the synthesis and "
        "present in the original",
    )
    c.add_argument(
        "--recode",
        action="append",
        metavar="VAR=BOTTOM,TOP",
        help="(recode.vars, bottom.top.coding) bottom/top codes of a numeric "
        "variable, either may be empty (age=,80); repeatable",
    )
    c.add_argument(
        "--recode-exclude",
        action="append",
        metavar="VAR=CODE[,CODE]",
        help="(recode.exclude) codes of VAR never recoded; repeatable",
    )
    c.add_argument(
        "--rm-disclosive",
        action="append",
        metavar="TARGET[:KEY,KEY...]",
        help="(beyond synthpop) remove the records in TARGET's DiSCO cells, over "
        "these keys (default: --keys), after the uniques; repeatable",
    )
    c.add_argument(
        "--measure",
        nargs="?",
        const="",
        default=None,
        metavar="TARGET,...",
        help="print disclosure_summary before and after (over --keys; default "
        "targets: every column of both sides not a key)",
    )
    c.add_argument("--label", default=None, help="(label) add a first column flag = LABEL")
    c.add_argument("--prefix", default=None, help="(prefix) before every column name")
    c.add_argument("--suffix", default=None, help="(suffix) after every column name")
    c.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where the protected syntheses go: a directory, FILE.parquet / "
        "FILE.csv with {synthesis} in it when there are several, or FILE.duckdb "
        "(tables in it)",
    )
    c.add_argument(
        "--out-table",
        default=None,
        metavar="NAME",
        help="the tables' name (with {synthesis} when there are several): in "
        "--out FILE.duckdb, or in the database of --engine postgres/spark",
    )
    c.add_argument("--overwrite", action="store_true", help="replace existing files or tables")
    c.add_argument(
        "--dry-run",
        action="store_true",
        help="count what would be removed and recoded, write nothing (the default "
        "without --out and --out-table)",
    )
    add_script_options(
        c, "the step (CREATE TABLE --out-table AS ...; duckdb scripts may --out files)"
    )

    s = sub.add_parser("summary", help="many targets at once (synthpop multi.disclosure())")
    add_common(s)
    s.add_argument(
        "--targets",
        type=csv_list,
        default=None,
        help="(targets) comma-separated; default: every column of both sides not a key",
    )
    s.add_argument(
        "--ident-meas", default="repU", choices=list(IDENT_MEASURES), help="(ident.meas)"
    )
    s.add_argument(
        "--attrib-meas",
        default="DiSCO",
        choices=list(ATTRIB_MEASURES),
        help="(attrib.meas)",
    )
    add_targets_options(s)
    s.add_argument(
        "--plot",
        type=Path,
        default=None,
        metavar="FILE.png|.svg",
        help="save synthpop's comparison plot",
    )

    _add_risk(sub)
    _add_suda(sub)
    _add_report(sub)
    for module in (singling_out, matches, linkability):
        module.add_parser(sub, add_engine_options, add_output_options, add_anonymity_script)

    w = sub.add_parser("sweep", help="the measures of every subset of the keys (key sweep)")
    add_common(w)
    w.add_argument(
        "--targets",
        type=csv_list,
        default=None,
        help="comma-separated; default: every column of both sides not a key",
    )
    w.add_argument(
        "--sizes",
        type=csv_list,
        default=None,
        metavar="N[,N...]",
        help="subset sizes, counting the fixed keys (default: 1 to all)",
    )
    w.add_argument(
        "--fixed-keys",
        type=csv_list,
        default=None,
        metavar="KEY[,KEY...]",
        help="keys in every subset",
    )
    add_targets_options(w, tau=False)
    w.add_argument(
        "--worst",
        type=int,
        default=None,
        metavar="K",
        help="print only the K riskiest subsets per target (by --measure)",
    )
    w.add_argument(
        "--measure", default="DiSCO", help="the measure --worst and --plot rank by (default DiSCO)"
    )
    add_script_options(w, "the sweep")
    w.add_argument(
        "--plot",
        type=Path,
        default=None,
        metavar="FILE.png|.svg",
        help="save the sweep plot (risk by number of keys, key heat map)",
    )
    for command in sub.choices.values():  # one rule for outputs: replaced only when asked
        writes = {"--out", "--json", "--plot", "--sql"} & set(command._option_string_actions)
        if writes and "--overwrite" not in command._option_string_actions:
            command.add_argument(
                "--overwrite", action="store_true", help="replace existing output files or tables"
            )
    return p


def _add_risk(sub: Any) -> None:
    r = sub.add_parser(
        "risk",
        help="re-identification risk and l-diversity of the original data (sdcMicro "
        "measure_risk(), ldiversity())",
    )
    r.add_argument(
        "data",
        help="the data: a Parquet or CSV path, glob or directory (a table "
        "name with --engine postgresql://...)",
    )
    r.add_argument("--keys", type=csv_list, required=True, help="key columns, comma-separated")
    r.add_argument(
        "--weight",
        default=None,
        metavar="W",
        help="sampling weight column (Fk: the population estimate)",
    )
    r.add_argument(
        "--household",
        default=None,
        metavar="H",
        help="household id column: adds the household risk",
    )
    r.add_argument(
        "--alpha",
        type=float,
        default=1.0,
        metavar="A",
        help="weight of a match through a missing key, 0 to 1 (default 1)",
    )
    r.add_argument(
        "--max-global-risk",
        type=float,
        default=0.01,
        metavar="R",
        help="global risk the threshold aims at, in (0, 1) (default 0.01)",
    )
    r.add_argument(
        "--ldiversity",
        type=csv_list,
        default=None,
        metavar="VAR[,VAR...]",
        help="also the l-diversity of these sensitive variables",
    )
    r.add_argument(
        "--l-recurs-c",
        type=float,
        default=2.0,
        metavar="C",
        help="the constant c of recursive (c, l)-diversity (default 2)",
    )
    r.add_argument(
        "--missing-keys",
        choices=["equal", "apart"],
        default="equal",
        help="l-diversity: records with the same missing keys share a cell (equal, the "
        "default: sdcMicro 5.8.2), or a record with a missing key is a cell of its own "
        "(apart: sdcMicro 5.8.0)",
    )
    r.add_argument(
        "--missing-sensitive",
        choices=["category", "distinct", "ignore"],
        default="category",
        help="l-diversity: a variable's missing values are one more value (category, the "
        "default), each a value of its own (distinct: sdcMicro), or left out (ignore)",
    )
    r.add_argument(
        "--mode",
        choices=["internal", "external"],
        default="internal",
        help="external: counts only, never the riskiest cells' levels",
    )
    _add_risk_script_options(r)
    r.add_argument(
        "--out-table",
        default=None,
        metavar="NAME",
        help="the per-record table to create (in --out FILE.duckdb, on the engine's "
        "database, or with --sql where the script runs)",
    )
    _add_id(r)
    add_engine_options(r)
    add_output_options(r)


def _add_id(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--id",
        default=None,
        metavar="COLUMN",
        help="a column that names each record (unique, never missing): the per-record "
        "table's first column, to join it back (on PostgreSQL rows have no load order)",
    )


def _add_risk_script_options(p: argparse.ArgumentParser) -> None:
    """--sql FILE, its dialect and the table it reads (risk, suda)."""
    p.add_argument(
        "--sql",
        type=Path,
        default=None,
        metavar="FILE",
        help="write the measures as one SQL script to FILE, not run them",
    )
    p.add_argument(
        "--dialect",
        default=DEFAULT,
        choices=ORDERED_DIALECTS,
        help=f"with --sql: the script's dialect (default: duckdb{UNTRIED})",
    )
    p.add_argument(
        "--table",
        default=None,
        metavar="NAME",
        help="with --sql: the table the script reads (schema.table)",
    )


def _add_suda(sub: Any) -> None:
    s = sub.add_parser(
        "suda",
        help="special uniques of the original data: SUDA2 scores and DIS-SUDA (sdcMicro suda2())",
    )
    s.add_argument(
        "data",
        help="the data: a Parquet or CSV path, glob or directory (a table "
        "name with --engine postgresql://...)",
    )
    s.add_argument("--keys", type=csv_list, required=True, help="key columns, comma-separated")
    s.add_argument(
        "--dis-fraction",
        type=float,
        default=0.01,
        metavar="F",
        help="the sampling fraction of DIS-SUDA, 0 to 1 (default 0.01)",
    )
    s.add_argument(
        "--max-size",
        type=int,
        default=None,
        metavar="K",
        help="look for MSUs of up to K keys (default: all keys)",
    )
    s.add_argument(
        "--ihsn-scores",
        action="store_true",
        help="the IHSN weights (2^(M-k) - 1) / C(M, k), not (M - k)!",
    )
    s.add_argument(
        "--out-table",
        default=None,
        metavar="NAME",
        help="the per-record table to create (in --out FILE.duckdb, on the "
        "engine's database, or with --sql where the script runs)",
    )
    _add_risk_script_options(s)
    _add_id(s)
    add_engine_options(s)
    add_output_options(s)


def _add_report(sub: Any) -> None:
    r = sub.add_parser("report", help="a release report for a disclosure review board (HTML)")
    add_common(r, outputs=False)
    r.add_argument(
        "--targets",
        type=csv_list,
        default=None,
        help="comma-separated; default: every column of both sides not a key",
    )
    add_targets_options(r)
    r.add_argument(
        "--control",
        default=None,
        metavar="FILE",
        help="a holdout of the original (records not used to fit the synthesiser): "
        "the CAP scores' baseline",
    )
    r.add_argument("--sweep", action="store_true", help="add the key sweep (every key subset)")
    r.add_argument(
        "--risk", action="store_true", help="add the original data's risk (sdcMicro measure_risk)"
    )
    r.add_argument(
        "--weight",
        default=None,
        metavar="W",
        help="the original's sampling weight (adds the risk section)",
    )
    r.add_argument(
        "--sdc",
        choices=["replicated", "in_original"],
        default=None,
        help="add sdc(): remove the replicated uniques or the uniques in the "
        "original, with the measures before and after",
    )
    add_synthpop(r, "that --sdc records and the report states", default=None)
    r.add_argument(
        "--anonymity",
        action="store_true",
        help="add the three tests of anonymisation: singling out, linkability (A the keys, B "
        "the targets) and the exact matches",
    )
    r.add_argument(
        "--anonymity-columns",
        type=csv_list,
        default=None,
        metavar="C1,C2,...",
        help="with --anonymity: the columns of singling out and the matches (default: the "
        "keys and the targets)",
    )
    r.add_argument(
        "--n-cols",
        type=int,
        default=3,
        metavar="N",
        help="with --anonymity: columns per singling-out predicate (default 3)",
    )
    for side in "ab":
        r.add_argument(
            f"--link-{side}",
            type=csv_list,
            default=None,
            metavar="C1,C2,...",
            help=f"with --anonymity: linkability's columns {side.upper()} (default: "
            + ("the keys)" if side == "a" else "the targets)"),
        )
    r.add_argument(
        "--threshold",
        action="append",
        metavar="MEASURE=PERCENT",
        help="the board's own policy, e.g. repU=1 (repeatable; with --risk also "
        "global_risk_pct=...)",
    )
    r.add_argument(
        "--mode",
        choices=["internal", "external"],
        default="internal",
        help="external: aggregate percentages only (no level names, small counts or paths)",
    )
    r.add_argument(
        "--min-count",
        type=int,
        default=8,
        metavar="N",
        help="external mode: counts below N show as '< N', percentages of fewer "
        "than N records are withheld (default 8)",
    )
    r.add_argument(
        "--round-to",
        type=int,
        default=5,
        metavar="N",
        help="external mode: the other counts rounded to N (default 5)",
    )
    r.add_argument(
        "--inline-sql",
        action="store_true",
        help="the SQL script in the report (default: FILE.sql beside it)",
    )
    r.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="FILE.html",
        help="the report (and FILE.sql: the script of its tables)",
    )
    r.add_argument(
        "--json",
        type=Path,
        default=None,
        metavar="FILE.json",
        help="also write the report's content as JSON",
    )
