"""The SQL itself: every template renders, parses, transpiles and avoids non-portable constructs."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
import sqlglot

import discosql
import discosql as ds
from discosql.anonymity import distance, linkability_hamming
from discosql.sql import templates
from discosql.sql.dialects import parsed_placeholders, placeholders

from . import oracle
from .helpers.sql import NON_PORTABLE, strip_strings

# templates that write an expression of a dialect fact, each dialect's own function by design
# (the fingerprint's row_hash: DuckDB's hash, PostgreSQL's hashtextextended, Spark's xxhash64)
PER_DIALECT = {"inspect/fingerprint.sql.j2"}
DIALECTS = ["postgres", "spark", "sqlite", "bigquery", "snowflake", "trino", "tsql"]


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    """Every template as rendered by a run that switches on every option."""
    seen: dict[str, str] = {}
    original_render = templates.render

    def spy(template: str, dialect: str = "duckdb", **context: Any) -> str:
        sql = original_render(template, dialect, **context)
        seen.setdefault(template, sql)
        return sql

    mp = pytest.MonkeyPatch()
    # every module that imported the renderer, found rather than listed: a new module
    # (a split, a measure) is spied on without anyone remembering to add it here
    for module in _modules_that_render():
        mp.setattr(module, "render", spy)
    every_option: dict[str, Any] = {
        "keys": ["sex", "age", "income", "marital"],
        "target": "ls",
        "ngroups_keys": [0, 4, 5, 0],
        "cont_na": {"income": [-8]},
        "not_targetlev": ["TERRIBLE"],
        "use_target_na": False,
        "use_keys_na": [True, True, True, False],
        "exclude_keys": ["sex"],
        "exclude_keylevs": ["MALE"],
        "exclude_targetlevs": ["PLEASED"],
        "exclude_ov_denom_lim": True,
        "denom_lim": 3,
    }
    try:
        syn = oracle.synthetic_paths("s5")[:2]
        ds.disclosure(oracle.original_path(), syn, **every_option)
        ds.to_sql(oracle.original_path(), syn, **every_option)  # with the export guard
        ds.replicated_uniques(oracle.original_path(), syn, keys=["sex", "age"])
        sdc_kw: dict[str, Any] = {
            "keys": ["sex", "age"],
            "rm_replicated_uniques": True,
            "recode_vars": "income",
            "bottom_top_coding": (None, 5000),
            "recode_exclude": -8,
            "rm_disclosive": {"target": "depress"},
        }
        ds.sdc(oracle.original_path(), syn, **sdc_kw)
        ds.sdc_to_sql(oracle.original_path(), syn, out_table="t_{synthesis}", **sdc_kw)
        ds.key_sweep(oracle.original_path(), syn, ["sex", "age"], ["depress"], sizes=[1])
        for mode in ("univariate", "multivariate"):  # with a control: every data set counted
            so_columns = ["sex", "age", "income"]
            ds.singling_out(oracle.original_path(), syn[0], so_columns, mode, 2, syn[1])
        # three numeric columns: the synthesis' maximal points
        ds.singling_out(oracle.original_path(), syn[0], ["age", "income", "depress"], n_cols=3)
        ds.exact_matches(oracle.original_path(), syn, ["sex", "age", "income"], syn[1])
        sides = (["sex", "age"], ["income", "age"])  # a column on both sides
        ds.linkability(oracle.original_path(), syn[0], sides, syn[1], numeric="values")
        ds.linkability(oracle.original_path(), syn[0], sides, syn[1])  # the Gower attack
        # the exported scripts add up in SQL what the API adds up in Python
        ds.singling_out_to_sql(oracle.original_path(), syn[0], so_columns, "univariate", 1, syn[1])
        ds.exact_matches_to_sql(oracle.original_path(), syn, ["sex", "age", "income"], syn[1])
        ds.linkability_to_sql(oracle.original_path(), syn[0], sides, syn[1], numeric="values")
        mp.setattr(linkability_hamming, "MAX_JOINT", 0)  # the link step's listing too
        ds.linkability(oracle.original_path(), syn[0], sides, syn[1], numeric="values")
        ds.report(oracle.original_path(), syn, ["sex", "age"], ["depress"])
        # the distance family: every round of the search (no shortcut for small data), a
        # control, a baseline, and an empty synthesis (the nearest table of no records)
        mp.setattr(distance, "SMALL_PAIRS", 0)
        mp.setattr(distance, "FIRST_RADIUS", 0.25)  # two boxes a level: every template still
        dcr_cols = ["sex", "age", "income", "depress"]  # three boxed: the grid is chosen
        # 600 records each: every round still runs, in a fraction of the full data's time
        few = [
            pacsv.read_csv(p).select(dcr_cols).slice(0, 600) for p in (oracle.original_path(), *syn)
        ]
        ds.dcr(few[0], few[1], dcr_cols, few[2], few[2], within=0.1, syntheval=True)
        ds.membership(few[0], few[1], few[2], dcr_cols)
        # inference: the tied search in its rounds, a numeric and a categorical secret
        ds.inference(few[0], few[1], ["sex", "income"], "age", control=few[2])
        ds.inference(few[0], few[1], ["age", "income"], "sex")
        ds.inference(few[0], few[1], ["sex"], "age", regression=False)
        no_rows = pa.table({c: pa.array([], pa.int64()) for c in dcr_cols})
        with pytest.warns(ds.DiscoSQLWarning, match="no rows"):
            ds.dcr(few[0], no_rows, dcr_cols)
        with_weight = pa.table(
            {
                "k1": ["a", None, "b", "a"],
                "k2": [1, 2, None, 1],
                "w": [1.5, 2.0, 3.0, 1.0],
                "h": [1, 1, 2, None],
                "pid": [4, 3, 2, 1],
            }
        )
        ds.risk(with_weight, ["k1", "k2"], weight="w", household="h", alpha=0.5, id="pid")
        ds.ldiversity(with_weight, ["k1"], ["k2", "h"])
        ds.suda(with_weight, ["k1", "k2", "h"], id="pid")
        # PostgreSQL's privileges, asked on that dialect only (engines/privileges.py)
        spy("engine/privileges.sql.j2", "postgres", schemas=["schema_0", "schema_1"])
        empty = pa.table({"k": ["a", "", "b"], "t": ["x", "y", "x"]})
        with pytest.warns(ds.DiscoSQLWarning, match="empty strings"):
            ds.disclosure(empty, empty, keys=["k"], target="t")
        ds.disclosure(
            oracle.original_path(),
            oracle.synthetic_paths("s5")[:1],
            keys=["sex", "age"],
            target="depress",
            ngroups_target=30,
            tau=[0.5, 1],
        )
        ds.disclosure_summary(  # the shared records of several targets
            oracle.original_path(),
            oracle.synthetic_paths("s5")[:1],
            ["sex", "age"],
            ["depress", "ls"],
            use_keys_na=False,
            use_targets_na=False,
        )
    finally:
        mp.undo()
    return seen


def _modules_that_render() -> list[ModuleType]:
    found = []
    for info in pkgutil.walk_packages(discosql.__path__, "discosql."):
        if info.name.endswith(".__main__"):  # importing it runs the CLI
            continue
        module = importlib.import_module(info.name)
        if getattr(module, "render", None) is templates.render:
            found.append(module)
    return found


def _all_templates() -> set[str]:
    root = templates.template_dir()
    return {
        str(p.relative_to(root))
        for p in root.rglob("*.sql.j2")
        if p.parent.name not in ("macros", "cap")  # the CAP family has its own template tests
    }


def test_every_template_is_exercised(rendered: dict[str, str]) -> None:
    assert _all_templates() <= set(rendered)


def test_the_placeholder_scan_finds_what_the_parse_finds(rendered: dict[str, str]) -> None:
    """The engines bind what placeholders() scans; it must equal sqlglot's parse tree on every
    template, and on the places where a $ is text."""
    for template, sql in rendered.items():
        assert placeholders(sql) == parsed_placeholders(sql), template
    tricky = """select $a, '$b', 'it''s $c', "$d", "x""$e", $f_1 -- $g
    /* $h
    */ from t where v = $i"""
    assert placeholders(tricky) == parsed_placeholders(tricky) == {"a", "f_1", "i"}


def test_every_template_has_a_header() -> None:
    root = templates.template_dir()
    for path in root.rglob("*.sql.j2"):
        assert path.read_text().lstrip().startswith("{#"), f"{path} has no header comment"


@pytest.mark.parametrize("construct", sorted(NON_PORTABLE))
def test_no_non_portable_constructs(rendered: dict[str, str], construct: str) -> None:
    pattern = re.compile(NON_PORTABLE[construct], re.IGNORECASE)
    offenders = [
        name
        for name, sql in rendered.items()
        if pattern.search(strip_strings(sql)) and name not in PER_DIALECT
    ]
    assert not offenders, f"{construct} in {offenders}"


def _is_double(e: Any) -> bool:
    """Whether an expression is a double by the way it is written: a cast to DOUBLE, a literal
    with a point or exponent, or arithmetic/CASE/coalesce with such a part."""
    if isinstance(e, sqlglot.exp.Cast):
        return e.to.this in (sqlglot.exp.DataType.Type.DOUBLE, sqlglot.exp.DataType.Type.FLOAT)
    if isinstance(e, sqlglot.exp.Literal):
        return not e.is_string and not e.this.isdigit()
    if isinstance(e, sqlglot.exp.Paren):
        return _is_double(e.this)
    if isinstance(e, sqlglot.exp.Binary):
        return _is_double(e.this) or _is_double(e.expression)
    if isinstance(e, sqlglot.exp.Case):
        parts = [i.args["true"] for i in e.args["ifs"]] + [e.args.get("default")]
        return any(_is_double(p) for p in parts if p is not None)
    if isinstance(e, sqlglot.exp.Coalesce):
        return _is_double(e.this)
    return False


def _division_offenders(sql: str) -> list[str]:
    """A `/` with no double side (an integer division that some engines truncate and others
    do not), or a `//` or `%` whose operands are not both cast to BIGINT (macros/portable's
    int_div and int_mod are the only way to divide integers)."""
    bigint = sqlglot.exp.DataType.Type.BIGINT
    out = []
    for tree in sqlglot.parse(sql, read="duckdb"):
        assert tree is not None
        for node in tree.find_all(sqlglot.exp.Div):
            if not (_is_double(node.this) or _is_double(node.expression)):
                out.append(node.sql("duckdb"))
        for node in tree.find_all(sqlglot.exp.IntDiv, sqlglot.exp.Mod):
            sides = (node.this, node.expression)
            if not all(isinstance(e, sqlglot.exp.Cast) and e.to.this == bigint for e in sides):
                out.append(node.sql("duckdb"))
    return out


def test_integers_are_divided_only_through_int_div(rendered: dict[str, str]) -> None:
    offenders = {name: bad for name, sql in rendered.items() if (bad := _division_offenders(sql))}
    assert not offenders


def test_the_division_lint_catches_offenders() -> None:
    assert _division_offenders("select a / b, cast(a as double) / b, 100.0 * a / b from t") == [
        "a / b"
    ]
    assert len(_division_offenders("select a // b, a % cast(b as bigint) from t")) == 2
    assert not _division_offenders(
        "select (cast(cast(q as bigint) // cast(p as bigint) as bigint) % cast(r as bigint)) from t"
    )


@pytest.mark.parametrize("dialect", [*DIALECTS, "datafusion"])
def test_integer_division_is_exact_on_every_dialect(dialect: str) -> None:
    """int_div as each dialect receives it, nested in another as well: never a division of
    doubles (inexact above 2^53), never NUMERIC (PostgreSQL's DIV), never Snowflake's rounded
    division (TRUNC)."""
    from discosql.sql.dialects import transpile

    env = templates.environment(dialect)
    macro = env.from_string(
        '{% from "macros/portable.sql.j2" import int_div, int_mod %}'
        "select {{ int_mod(int_div('q', 'p'), 'r') }},"
        " {{ int_div(int_div('q', 'p') ~ ' * 2', 'r') }} from t"
    ).render()
    out = transpile(macro, dialect).upper()
    for inexact in ("DOUBLE", "FLOAT", "REAL", "TRUNC", "DIV("):
        if inexact == "DIV(" and dialect == "bigquery":
            continue  # BigQuery's DIV() is its integer division of INT64
        assert inexact not in out, (dialect, out)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_transpiles(rendered: dict[str, str], dialect: str) -> None:
    for name, sql in rendered.items():
        out = sqlglot.transpile(sql, read="duckdb", write=dialect)
        assert len(out) == 1, name
        sqlglot.parse_one(out[0], read=dialect)  # and the output parses in that dialect


def test_lint_catches_offenders() -> None:
    assert re.search(NON_PORTABLE["GROUP BY ALL"], "select a from t GROUP  BY ALL", re.IGNORECASE)
    assert re.search(
        NON_PORTABLE["null-safe comparison"], "a IS NOT DISTINCT FROM b", re.IGNORECASE
    )
    assert re.search(NON_PORTABLE["concat()"], "concat(a, b)", re.IGNORECASE)


def test_ident_quotes_anything() -> None:
    assert templates.ident('my col"x') == '"my col""x"'
    assert templates.ident("select") == '"select"'
    with pytest.raises(ds.TemplateError):
        templates.ident(3)
    with pytest.raises(ds.TemplateError):
        templates.lit("3")


def test_render_errors_name_the_template(tmp_path: Path) -> None:
    with pytest.raises(ds.TemplateError, match=re.escape("measures/identity.sql.j2")):
        templates.render("measures/identity.sql.j2")  # no context: StrictUndefined


ODD_NAMES = ['sex "quoted"', "select", "日本 語", "x'); drop table t; --", "a|b", "Missing"]


def test_odd_column_names_and_values() -> None:
    """Identifiers with quotes, SQL words and unicode, and values with quotes, work end to end."""
    base_o = {
        "k1": ["a", "b", "b", "c'", 'd"', None],
        "k2": [1, 2, 2, 3, 3, 4],
        "t": ["x", "y", "y", "x | y", "z", None],
    }
    base_s = {
        "k1": ["a", "b", "c'", 'd"', None, "e"],
        "k2": [1, 2, 3, 3, 4, 5],
        "t": ["x", "y", "x | y", "z", "x", "y"],
    }
    ref = ds.disclosure(pa.table(base_o), pa.table(base_s), keys=["k1", "k2"], target="t")
    for i in range(0, len(ODD_NAMES), 3):
        names = dict(zip(["k1", "k2", "t"], ODD_NAMES[i : i + 3], strict=True))
        o = pa.table({names[c]: v for c, v in base_o.items()})
        s = pa.table({names[c]: v for c, v in base_s.items()})
        res = ds.disclosure(o, s, keys=[names["k1"], names["k2"]], target=names["t"])
        for table in ("ident", "attrib", "allcaps", "exclusions"):
            assert getattr(res, table).to_pylist() == getattr(ref, table).to_pylist()


def test_cap_templates_render_parse_transpile_and_stay_portable() -> None:
    """The CAP family's templates (sql_templates/cap), rendered by runs that use every option."""
    from discosql.measure.cap import cells

    seen: dict[str, str] = {}
    original_render = cells.render

    def spy(template: str, *args: Any, **context: Any) -> str:
        sql = original_render(template, *args, **context)
        seen.setdefault(template + " " + str(context.get("statement", "")), sql)
        return sql

    o = pa.table(
        {"k 1": ["a", "b", None, "c'"], "select": [1, 2, 2, 3], "t": ["x", "y", "y", None]},
    )
    s = pa.table({"k 1": ["a", "b", "b", "d"], "select": [1, 2, 3, 3], "t": ["x", "y", "x", "y"]})
    mp = pytest.MonkeyPatch()
    mp.setattr(cells, "render", spy)
    try:
        ds.disclosure_protection(
            o,
            s,
            ["k 1", "select"],
            "t",
            computation_method="generalized_cap",
            continuous_columns=["select"],
            num_discrete_bins=3,
            control=o,
        )
        ds.taub_tcap(o, s, ["k 1", "select"], "t", tau=0.5, control=o)
        ds.cap_records(o, s, ["k 1", "select"], "t", control=o)
        ds.cap_summary(o, s, ["k 1", "select"], "t", control=o)
    finally:
        mp.undo()
    root = templates.template_dir()
    assert {f"cap/{p.name}" for p in (root / "cap").glob("*.sql.j2")} == {
        name.split(" ")[0] for name in seen
    }
    for name, sql in seen.items():
        stripped = strip_strings(sql)
        for construct, pattern in NON_PORTABLE.items():
            assert not re.search(pattern, stripped, re.IGNORECASE), f"{construct} in {name}"
        assert not re.search(r"\bis(nan|inf)\s*\(", stripped, re.IGNORECASE), name
        assert not _division_offenders(sql), name
        for dialect in DIALECTS:
            out = sqlglot.transpile(sql, read="duckdb", write=dialect)
            assert len(out) == 1, (name, dialect)
            sqlglot.parse_one(out[0], read=dialect)


def test_text_names_only_stages_and_templates_that_exist() -> None:
    """Template headers and the package's docstrings and comments name real stages and files."""
    root = templates.template_dir()
    stage_numbers = {p.name[:3] for p in (root / "stages").glob("*.sql.j2")}
    names = {str(p.relative_to(root)).removesuffix(".sql.j2") for p in root.rglob("*.sql.j2")}
    folders = "|".join(sorted({p.parent.name for p in root.rglob("*.sql.j2")}))
    package = Path(ds.__file__).parent
    texts = {str(p): p.read_text().split("#}")[0] for p in root.rglob("*.sql.j2")}
    texts |= {str(p): p.read_text() for p in package.rglob("*.py")}
    for where, text in texts.items():
        for number in re.findall(r"\b[Ss]tages? (\d{3})\b", text):
            assert number in stage_numbers, f"{where}: stage {number} does not exist"
        for name in re.findall(rf"\b((?:{folders})/[a-z0-9_]+)\b", text):
            assert name in names, f"{where}: {name} is not a template"
    assert "reference" not in " ".join(texts.values()).replace("brute-force reference", "")


def test_line_breaks_in_names_stay_in_the_names() -> None:
    """A key or target name with a line break (\\n, \\r, U+2028) is one identifier: no template
    may re-indent the lines of rendered SQL (an indent filter wrote spaces into the name)."""
    names = {"k": "k\nx", "j": "j\r\ny", "t": "t\u2028z"}
    base = pa.table({"k": ["a", "b", "a", "b"], "j": [1, 1, 2, 2], "t": ["p", "q", "p", "p"]})
    odd = base.rename_columns([names[c] for c in base.column_names])
    want = ds.disclosure_summary(base, base, keys=["k", "j"], targets=["t"])
    got = ds.disclosure_summary(odd, odd, keys=[names["k"], names["j"]], targets=[names["t"]])
    for table in ("ident", "attrib", "allcaps", "exclusions"):
        assert getattr(got.results[names["t"]], table) == getattr(want.results["t"], table)
    one = ds.disclosure(odd, odd, keys=[names["k"], names["j"]], target=names["t"])
    assert one.attrib == want.results["t"].attrib


def test_compiled_templates_cache_never_fails_a_render(tmp_path: Path) -> None:
    """The cache of compiled templates is skipped when it cannot be written or read, and its
    files are named by the environment's options (code compiled under other options is never
    read)."""
    import jinja2

    from discosql.sql import templates

    env = templates.environment()
    columns = [{"levels": "a", "stack": None}, {"levels": "b", "stack": None}]
    expected = templates.render("inspect/radices.sql.j2", columns=columns)

    def rendered(cache: jinja2.BytecodeCache) -> str:
        # a new environment (no templates loaded yet) with the options of discosql's
        return (
            env.overlay(bytecode_cache=cache)
            .get_template("inspect/radices.sql.j2")
            .render(columns=columns)
        )

    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    assert rendered(templates.BytecodeCache(directory=str(not_a_dir))) == expected
    # a cached file is read, and a corrupt one compiled again
    cache = templates.BytecodeCache(directory=str(tmp_path))
    for _ in range(2):
        assert rendered(cache) == expected
        assert list(tmp_path.glob("__jinja2_*"))  # written
        for f in tmp_path.glob("__jinja2_*"):
            f.write_bytes(b"not bytecode")
    plain = jinja2.Environment(loader=env.loader)
    cached = templates.bytecode_cache(plain, "sql")
    assert isinstance(cached, templates.BytecodeCache)
    assert isinstance(env.bytecode_cache, templates.BytecodeCache)
    assert cached.pattern != env.bytecode_cache.pattern
    # the HTML (the report's, every result's notebook view) is cached apart from the SQL
    from discosql.core import view

    html = view.environment().bytecode_cache
    assert isinstance(html, templates.BytecodeCache)
    assert html.pattern != env.bytecode_cache.pattern


def test_a_dialect_without_a_spelling_stops_the_render(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dialect whose record lacks a spelling the template needs (here: how to test for NaN,
    which ClickHouse could not take from PostgreSQL: NaN = NaN is false there) stops with an
    error naming the fact, instead of getting another dialect's spelling."""
    from discosql.errors import TemplateError
    from discosql.sql import dialects

    monkeypatch.setitem(dialects.FACTS, "newsql", dialects.Dialect("newsql", "clickhouse"))
    context = {"records": "r", "stop": False}
    with pytest.raises(TemplateError, match=r"'newsql' does not say how to write 'nan_test'"):
        templates.render("risk/bad_weights.sql.j2", "newsql", **context)
    nan = dialects.Dialect("newsql", "clickhouse", nan_stored_isnan=True)
    monkeypatch.setitem(dialects.FACTS, "newsql", nan)
    assert "isnan(w)" in templates.render("risk/bad_weights.sql.j2", "newsql", **context)
    with pytest.raises(ValueError, match="nan_test='nan' is not one of"):
        dialects.Dialect("newsql", "clickhouse", nan_test="nan")


def test_every_dialect_has_every_spelling() -> None:
    from discosql.sql import dialects

    for name, record in dialects.FACTS.items():
        missing = [f for f in dialects.SPELLINGS if getattr(record, f) is None]
        assert not missing, (name, missing)
