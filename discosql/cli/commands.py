"""The ``discosql`` subcommands, one function each, calling the Python API: disclosure, summary,
sql, uniques, sdc, sweep, report (how their tables print: :mod:`.output`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..core.files import atomic_path, write_text
from ..core.outputcheck import MIN_COUNT, ROUND_TO, OutputCheck
from ..sql.dialects import is_template_dialect
from .args import csv_list, engine_of, script_tables
from .options import UsageError, boolean, parse_cont_na, target_map
from .output import Progress, text_table, write


def _common_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "keys": args.keys,
        "denom_lim": args.denom_lim,
        "exclude_ov_denom_lim": args.exclude_ov_denom_lim,
        "use_keys_na": args.use_keys_na,
        "ngroups_keys": args.ngroups_keys,
        "cont_na": parse_cont_na(args.cont_na),
        "thresh_1way": args.thresh_1way,
        "thresh_2way": args.thresh_2way,
        "threads": args.threads,
        "engine": engine_of(args),
    }


def disclosure_command(args: argparse.Namespace, progress: Progress) -> None:
    from ..measure.disclosure import disclosure

    progress.current = f"target {args.target}"
    res = disclosure(
        args.original,
        args.synthetic,
        target=args.target,
        tau=args.tau,
        **_target_kwargs(args),
        **_common_kwargs(args),
    )
    table = getattr(res, args.table)
    text = f"{res}\n\n{text_table(res.measures.drop_columns(['target']))}"
    if args.table != "measures":
        text = f"{res}\n\n{text_table(table)}"
    write(table, text, args.format, args.out)


def _target_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    ex = args.exclude or []
    return {
        "not_targetlev": args.not_targetlev,
        "use_target_na": args.use_target_na,
        "exclude_keys": [e[0] for e in ex] or None,
        "exclude_keylevs": [e[1] for e in ex] or None,
        "exclude_targetlevs": [e[2] for e in ex] or None,
        "ngroups_target": args.ngroups_target,
    }


def sql_command(args: argparse.Namespace) -> None:
    from ..measure.export import to_sql

    script = to_sql(
        args.original,
        args.synthetic,
        target=csv_list(args.target),
        dialect=args.dialect,
        tables=script_tables(args),
        tau=args.tau,
        **_target_kwargs(args),
        **_common_kwargs(args),
    )
    if args.out is None:
        sys.stdout.write(script)
    else:
        write_text(args.out, script)


def uniques_command(args: argparse.Namespace) -> None:
    from ..protect.uniques import denominators, replicated_uniques

    res = replicated_uniques(
        args.original,
        args.synthetic,
        keys=args.keys,
        synthpop=args.synthpop,
        engine=engine_of(args),
        threads=args.threads,
    )
    keys = ", ".join(res.keys)
    text = f"Uniques over the keys {keys}\n{denominators(res.synthpop)}\n\n{text_table(res.table)}"
    write(res.table, text, args.format, args.out)


def _codes(text: str, flag: str) -> list[float | None]:
    try:
        return [float(x) if x.strip() else None for x in text.split(",")]
    except ValueError:
        raise UsageError(f"{flag}: codes must be numbers, got {text!r}") from None


def sdc_command(args: argparse.Namespace) -> None:
    from ..protect.sdc import sdc

    recode_vars, coding, exclude = [], [], {}
    for item in args.recode or []:
        var, sep, codes = item.partition("=")
        pair = _codes(codes, "--recode")
        if not sep or len(pair) != 2:
            raise UsageError(
                f"--recode: expected VAR=BOTTOM,TOP (either may be empty), got {item!r}"
            )
        recode_vars.append(var)
        coding.append(tuple(pair))
    for item in args.recode_exclude or []:
        var, sep, codes = item.partition("=")
        if not sep or var not in recode_vars:
            raise UsageError(
                f"--recode-exclude: expected VAR=CODE[,CODE] for a --recode VAR, got {item!r}"
            )
        exclude[var] = _codes(codes, "--recode-exclude")
    dry_run = args.dry_run or (args.out is None and args.out_table is None)
    if dry_run and args.sql is not None:
        raise UsageError("--sql: the script writes the protected data; give --out or --out-table")
    if args.sql is None and (args.original_table or args.synthetic_tables or _dialect_given(args)):
        raise UsageError("--dialect/--original-table/--synthetic-tables: only with --sql")
    if args.sql is not None and args.measure is not None:
        raise UsageError("--measure: not with --sql (the script measures nothing)")
    disclosive = []
    for item in args.rm_disclosive or []:
        target, sep, keys = item.partition(":")
        entry: dict[str, Any] = {"target": target}
        if sep:
            entry["keys"] = csv_list(keys)
        disclosive.append(entry)
    measure = None
    if args.measure is not None:
        measure = {"targets": csv_list(args.measure)} if args.measure else {}
    protection: dict[str, Any] = {
        "keys": args.keys,
        "rm_replicated_uniques": args.rm_replicated_uniques,
        "rm_uniques_in_orig": args.rm_uniques_in_orig,
        "recode_vars": recode_vars or None,
        "bottom_top_coding": coding or None,
        "recode_exclude": [exclude.get(v) for v in recode_vars] if exclude else None,
        "label": args.label,
        "prefix": args.prefix,
        "suffix": args.suffix,
        "rm_disclosive": disclosive or None,
        "synthpop": args.synthpop,
        "out": None if args.out is None else str(args.out),
        "out_table": args.out_table,
        "overwrite": args.overwrite,
        "engine": engine_of(args),
        "threads": args.threads,
    }
    if args.sql is not None:
        from ..protect.export import sdc_to_sql

        tables = script_tables(args)
        script = sdc_to_sql(
            args.original, args.synthetic, dialect=args.dialect, tables=tables, **protection
        )
        write_text(args.sql, script)
        return
    res = sdc(args.original, args.synthetic, measure=measure, dry_run=dry_run, **protection)
    text = f"{'Would remove' if dry_run else 'Removed'}\n{text_table(res.removed)}"
    if res.recoded.num_rows:
        text += f"\n\n{'Would recode' if dry_run else 'Recoded'}\n{text_table(res.recoded)}"
    if res.before is not None and res.after is not None:
        text += f"\n\nBefore\n{res.before}\n\nAfter\n{res.after}"
    if dry_run:
        sys.stdout.write(text + "\n\nNothing written (a dry run).\n")
        return
    sys.stdout.write(text + "\n\nWritten\n" + "\n".join(res.out) + "\n")


def _targets_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """disclosure_summary's per-target options from their flags (summary, sweep)."""
    exclude: dict[str, list[tuple[str, str, str]]] = {}
    for target, key, keylev, targetlev in args.exclude or []:
        exclude.setdefault(target, []).append((key, keylev, targetlev))
    not_targetlevs: dict[str, list[str]] = {}
    for item in args.not_targetlevs or []:
        target, sep, level = item.partition("=")
        if not sep:
            raise UsageError(f"--not-targetlevs: expected TARGET=LEVEL, got {item!r}")
        not_targetlevs.setdefault(target, []).append(level)
    return {
        "not_targetlevs": not_targetlevs or None,
        "use_targets_na": target_map(args.use_targets_na, "--use-targets-na", boolean)
        if args.use_targets_na
        else True,
        "ngroups_targets": target_map(args.ngroups_targets, "--ngroups-targets", int),
        "exclude": exclude or None,
    }


def summary_command(args: argparse.Namespace, progress: Progress) -> None:
    from ..measure.summary import disclosure_summary

    s = disclosure_summary(
        args.original,
        args.synthetic,
        targets=args.targets,
        ident_meas=args.ident_meas,
        attrib_meas=args.attrib_meas,
        progress=progress.step,
        tau=args.tau,
        **_targets_kwargs(args),
        **_common_kwargs(args),
    )
    if args.plot is not None:
        save_figure(s.plot(), args.plot)
    write(s.table, str(s), args.format, args.out)


def report_command(args: argparse.Namespace, progress: Progress) -> None:
    from ..report.build import report

    thresholds: dict[str, float] = {}
    for item in args.threshold or []:
        measure, sep, value = item.partition("=")
        try:
            thresholds[measure] = float(value)
        except ValueError:
            raise UsageError(f"--threshold: expected MEASURE=PERCENT, got {item!r}") from None
        if not sep:
            raise UsageError(f"--threshold: expected MEASURE=PERCENT, got {item!r}")
    sdc = None
    if args.sdc is not None:
        sdc = {
            f"rm_{'replicated_uniques' if args.sdc == 'replicated' else 'uniques_in_orig'}": True
        }
        if args.synthpop is not None:
            sdc["synthpop"] = args.synthpop
    elif args.synthpop is not None:
        raise UsageError("--synthpop: only with --sdc (the release sdc records)")

    anonymity: dict[str, Any] | None = None
    links = (args.link_a, args.link_b)
    if args.anonymity:
        anonymity = {"n_cols": args.n_cols}
        if args.anonymity_columns is not None:
            anonymity["columns"] = args.anonymity_columns
        if any(side is not None for side in links):
            if None in links:
                raise UsageError("--link-a and --link-b: give both (linkability's A and B)")
            anonymity["aux_cols"] = links
    elif args.anonymity_columns is not None or any(side is not None for side in links):
        raise UsageError("--anonymity-columns, --link-a, --link-b: only with --anonymity")

    def section(name: str) -> None:
        progress.say(f"report: {name}")

    rep = report(
        args.original,
        args.synthetic,
        targets=args.targets,
        control=args.control,
        sweep=True if args.sweep else None,
        sdc=sdc,
        risk=args.risk,
        anonymity=anonymity,
        weight=args.weight,
        thresholds=thresholds or None,
        mode=args.mode,
        min_count=args.min_count,
        round_to=args.round_to,
        inline_sql=args.inline_sql,
        progress=section,
        tau=args.tau,
        **_targets_kwargs(args),
        **_common_kwargs(args),
    )
    rep.save(args.out)
    if args.json is not None:
        write_text(args.json, rep.to_json())
    sql = rep.sql_path(args.out)
    written = [str(p) for p in (args.out, sql, args.json) if p is not None]
    sys.stdout.write(f"Report written: {', '.join(written)}\n")


def sweep_command(args: argparse.Namespace, progress: Progress) -> None:
    from ..sweep.key_sweep import MEASURES, key_sweep

    if args.measure not in MEASURES:
        raise UsageError(f"--measure: {args.measure!r} is not one of {', '.join(MEASURES)}")
    if args.worst is not None and args.worst < 1:
        raise UsageError(f"--worst: expected a positive number of subsets, got {args.worst}")
    sizes = None
    if args.sizes is not None:
        try:
            sizes = [int(n) for n in args.sizes]
        except ValueError:
            raise UsageError(f"--sizes: expected integers, got {','.join(args.sizes)!r}") from None
    if args.sql is None and (args.original_table or args.synthetic_tables or _dialect_given(args)):
        raise UsageError("--dialect/--original-table/--synthetic-tables: only with --sql")
    if args.sql is not None and (args.plot or args.worst or args.out):
        raise UsageError("--plot/--worst/--out: not with --sql (the script prints the table)")
    kwargs = {
        "targets": args.targets,
        "sizes": sizes,
        "fixed_keys": args.fixed_keys or (),
        **_targets_kwargs(args),
        **_common_kwargs(args),
    }
    if args.sql is not None:
        from ..sweep.export import sweep_to_sql

        script = sweep_to_sql(
            args.original,
            args.synthetic,
            dialect=args.dialect,
            tables=script_tables(args),
            **kwargs,
        )
        write_text(args.sql, script)
        return
    sw = key_sweep(args.original, args.synthetic, progress=progress.step, **kwargs)
    if args.plot is not None:
        save_figure(sw.plot(args.measure), args.plot)
    table = sw.table
    if args.worst is not None:  # the number column says what it holds
        table = sw.worst(args.worst, args.measure).rename_columns(
            ["target", "keys", "n_keys", f"{args.measure}_mean"]
        )
    shown = table.set_column(
        table.schema.get_field_index("keys"),
        "keys",
        pa.array([", ".join(k) for k in table.column("keys").to_pylist()], pa.string()),
    )
    title = f"Key sweep over {', '.join(sw.keys)}" + (
        f" (the {args.worst} riskiest subsets per target by {args.measure})" if args.worst else ""
    )
    # CSV has no lists: the subset is written as one text field there (as printed)
    out_table = shown if args.format == "csv" else table
    write(out_table, f"{title}\n\n{text_table(shown)}", args.format, args.out)


def save_figure(figure: Any, path: Path) -> None:
    """A matplotlib figure at ``path`` (its format from the ending), complete or not at all."""
    with atomic_path(path) as temp:
        figure.savefig(temp, dpi=150)


def _dialect_given(args: argparse.Namespace) -> bool:
    """Whether --dialect names another dialect than the default (DuckDB's)."""
    return not is_template_dialect(args.dialect)


def _live_records(args: argparse.Namespace) -> tuple[bool, str | None]:
    """The options of a risk or suda run (not --sql): whether the per-record table is the
    output (--format csv/parquet), and where it goes (--out FILE, or with --out-table the
    DuckDB database --out names; None: returned)."""
    if args.table is not None or _dialect_given(args):
        raise UsageError("--dialect/--table: only with --sql")
    per_record = args.format in ("csv", "parquet")
    if args.out_table is not None and per_record:
        raise UsageError(
            "--out-table: the per-record table goes there; --format csv/parquet "
            "would print it too (give table or json for the summary)"
        )
    wanted = per_record or args.out_table is not None
    return per_record, str(args.out) if wanted and args.out is not None else None


def _no_id_in_scripts(args: argparse.Namespace) -> None:
    if args.id is not None:
        raise UsageError(
            "--id: not with --sql (an exported script numbers the records as its engine "
            "stores them); run the command on the engine itself for a table with the id"
        )


def suda_command(args: argparse.Namespace, progress: Progress) -> None:
    """The DIS-SUDA table, MSU sizes and contributions (table, json), or the per-record table
    (csv, parquet: with --out streamed to FILE; --out-table: a table, the summary printed)."""
    from ..risk.suda import check_arguments, suda

    check_arguments(args.keys, args.dis_fraction, not args.ihsn_scores, args.max_size)
    if args.sql is not None:
        _no_id_in_scripts(args)
        _suda_script(args)
        return
    per_record, out = _live_records(args)
    streamed = per_record and args.out is not None
    res = suda(
        args.data,
        args.keys,
        dis_fraction=args.dis_fraction,
        original_scores=not args.ihsn_scores,
        max_size=args.max_size,
        engine=engine_of(args),
        threads=args.threads,
        out=out,
        out_table=args.out_table,
        overwrite=args.overwrite,
        progress=progress.stage,
        id=args.id,
    )
    if streamed:
        return
    if per_record:
        assert res.records is not None
        write(res.records, "", args.format, None)
        return
    if args.format == "json":
        payload = res.to_dict() | ({"written": list(res.written)} if res.written else {})
        text = json.dumps(payload, indent=1, ensure_ascii=False, default=str) + "\n"
    else:
        text = str(res) + "\n"
    if args.out is None or args.out_table is not None:
        sys.stdout.write(text)
    else:
        write_text(args.out, text)


def _suda_script(args: argparse.Namespace) -> None:
    """--sql: the SUDA2 script written to FILE."""
    from ..risk.export import suda_to_sql

    if args.format not in ("table", "csv", "parquet"):
        raise UsageError("--format json: not with --sql (the script prints the tables)")
    script = suda_to_sql(
        args.data,
        args.keys,
        dis_fraction=args.dis_fraction,
        original_scores=not args.ihsn_scores,
        max_size=args.max_size,
        dialect=args.dialect,
        table=args.table,
        out=str(args.out) if args.out is not None else None,
        out_table=args.out_table,
        overwrite=True,
        engine=engine_of(args),
        threads=args.threads,
    )
    write_text(args.sql, script)


def _risk_script(args: argparse.Namespace) -> None:
    """--sql: the risk script (and the l-diversity one after it) written to FILE."""
    from ..risk.export import ldiversity_to_sql, risk_to_sql

    if args.format not in ("table", "csv", "parquet") or args.mode != "internal":
        raise UsageError("--format json/--mode: not with --sql (the script prints the tables)")
    out = str(args.out) if args.out is not None else None
    options = {
        "dialect": args.dialect,
        "table": args.table,
        "overwrite": True,
        "engine": engine_of(args),
        "threads": args.threads,
    }
    script = risk_to_sql(
        args.data,
        args.keys,
        weight=args.weight,
        household=args.household,
        alpha=args.alpha,
        max_global_risk=args.max_global_risk,
        out=out,
        out_table=args.out_table,
        **options,
    )
    if args.ldiversity is not None:
        l_out = (
            None
            if args.out is None
            else str(args.out.with_name(f"{args.out.stem}_ldiversity{args.out.suffix}"))
        )
        l_table = f"{args.out_table}_ldiversity" if args.out_table else None
        script += "\n" + ldiversity_to_sql(
            args.data,
            args.keys,
            args.ldiversity,
            l_recurs_c=args.l_recurs_c,
            missing_keys=args.missing_keys,
            missing_sensitive=args.missing_sensitive,
            out=l_out,
            out_table=l_table,
            **options,
        )
    write_text(args.sql, script)


def risk_command(args: argparse.Namespace) -> None:
    """The board's summary (table, json), or the per-record table (csv, parquet: with --out
    streamed to FILE, and the l-diversity records to FILE_ldiversity.ext beside it)."""
    from ..risk.individual import check_arguments as check_risk
    from ..risk.individual import risk
    from ..risk.ldiversity import check_arguments as check_ldiversity
    from ..risk.ldiversity import ldiversity

    check_risk(args.keys, args.weight, args.household, args.alpha, args.max_global_risk)
    if args.ldiversity is not None:
        check_ldiversity(
            args.keys, args.ldiversity, args.l_recurs_c, args.missing_keys, args.missing_sensitive
        )
    if args.sql is not None:
        _no_id_in_scripts(args)
        _risk_script(args)
        return
    per_record, out = _live_records(args)
    streamed = per_record and args.out is not None
    l_out = None
    if streamed and args.ldiversity is not None:
        l_out = str(args.out.with_name(f"{args.out.stem}_ldiversity{args.out.suffix}"))
    l_table = None
    if args.out_table is not None:  # in --out FILE.duckdb, else on the engine's database
        l_out, l_table = out, f"{args.out_table}_ldiversity"
    common = {"engine": engine_of(args), "threads": args.threads}
    res = risk(
        args.data,
        args.keys,
        weight=args.weight,
        household=args.household,
        alpha=args.alpha,
        max_global_risk=args.max_global_risk,
        out=out,
        out_table=args.out_table,
        overwrite=args.overwrite,
        id=args.id,
        **common,
    )
    ldiv = None
    if args.ldiversity is not None:
        ldiv = ldiversity(
            args.data,
            args.keys,
            args.ldiversity,
            l_recurs_c=args.l_recurs_c,
            missing_keys=args.missing_keys,
            missing_sensitive=args.missing_sensitive,
            out=l_out,
            out_table=l_table,
            overwrite=args.overwrite,
            **common,
        )
    if streamed:
        return
    if per_record:  # csv to stdout
        table = res.records
        assert table is not None
        if ldiv is not None and ldiv.records is not None:
            for name in ldiv.records.column_names[1:]:
                table = table.append_column(name, ldiv.records.column(name))
        write(table, "", args.format, None)
        return
    check = None
    if args.mode == "external":  # no level names; counts and shares through the check
        check = OutputCheck(MIN_COUNT, ROUND_TO, int(res.value("records")))
    if args.format == "json":
        payload = res.to_dict()
        if args.out_table is not None:
            payload["written"] = [*res.written, *(ldiv.written if ldiv else ())]
        if check is not None:
            payload.pop("riskiest")
            payload["summary"] = res.checked(check)
            payload["output_check"] = check.described()
        if ldiv is not None:
            payload["ldiversity"] = ldiv.to_dict(check)
        text = (
            json.dumps(payload, indent=1, ensure_ascii=False, allow_nan=False, default=str) + "\n"
        )
    else:
        ldiv_text = "" if ldiv is None else "\n\n" + ldiv.describe(check)
        text = res.describe(args.mode) + ldiv_text + "\n"
    if args.out is None or args.out_table is not None:
        sys.stdout.write(text)
    else:
        write_text(args.out, text)
