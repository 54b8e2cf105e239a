"""The package's shape: packages by capability whose imports go one way (ARCHITECTURE.md), no
import cycles, functions small enough to read, modules of one concept (a warning past 600 lines).

Every import statement counts, including those inside functions and under TYPE_CHECKING: a
lazy import hides a cycle from Python, not from the reader.
"""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "discosql"
SOFT_MODULE_LINES = 600  # past this, a module probably holds two concepts: a warning, not a rule
MAX_FUNCTION_STATEMENTS = 60

# The layers, lowest first; a module may import its own package and any lower layer, never a
# higher one or a peer on its own layer. errors and version sit below everything; the package's
# __init__ (the public API) and __main__ above everything.
LAYERS: list[set[str]] = [
    {"secrets"},
    {"errors", "version"},
    {"sql"},
    {"engines"},
    {"core"},
    {"measure"},
    {"protect", "sweep", "risk", "anonymity"},
    {"report"},
    {"cli"},
    {"", "__main__"},
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package modules that ``name`` imports (``from . import x`` counts as ``pkg.x``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:
                    out.add(sub)
                elif target in known:
                    out.add(target)
    out.discard(name)
    return out


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycles() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    # a package's __init__ re-exporting its submodules is not a cycle with them
    for name in graph:
        graph[name] = {m for m in graph[name] if not name.startswith(m + ".")}
    assert _cycle(graph) is None, f"import cycle: {' -> '.join(_cycle(graph) or [])}"


def test_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def _place(module: str) -> str:
    """The package (top-level part under discosql) a module belongs to: ``core`` for
    ``discosql.core.plan``, ``errors`` for ``discosql.errors``, ``""`` for ``discosql``."""
    return module.split(".")[1] if "." in module else ""


def _rank(place: str) -> int:
    ranks = [i for i, layer in enumerate(LAYERS) if place in layer]
    assert ranks, f"discosql.{place} is in no layer of tests/test_layout.py (nor ARCHITECTURE.md)"
    return ranks[0]


def _upward(graph: dict[str, set[str]]) -> list[str]:
    """The imports that break the layering: to a higher layer, or to a peer on the same one."""
    wrong = []
    for name, targets in sorted(graph.items()):
        src = _place(name)
        for target in sorted(targets):
            dst = _place(target)
            if dst != src and _rank(dst) >= _rank(src):
                wrong.append(f"{name} -> {target}")
    return wrong


def test_imports_go_one_way() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    assert not _upward(graph), "imports against the layers (ARCHITECTURE.md): " + "; ".join(
        _upward(graph)
    )


def test_every_package_has_a_layer() -> None:
    places = {_place(name) for name in _modules()}
    assert places == set().union(*LAYERS), "tests/test_layout.py's LAYERS and the tree differ"


def test_the_layer_check_finds_wrong_imports() -> None:
    graph = {
        "discosql.core.plan": {"discosql.measure.summary", "discosql.core.spec"},
        "discosql.engines.base": {"discosql.core.results", "discosql.sql.templates"},
        "discosql.sweep.export": {"discosql.protect.sdc", "discosql.measure.export"},
        "discosql.cli.main": {"discosql.report.build", "discosql.errors"},
        "discosql.errors": {"discosql.sql.templates"},
    }
    assert _upward(graph) == [
        "discosql.core.plan -> discosql.measure.summary",
        "discosql.engines.base -> discosql.core.results",
        "discosql.errors -> discosql.sql.templates",
        "discosql.sweep.export -> discosql.protect.sdc",
    ]


def test_the_architecture_page_names_every_package() -> None:
    text = (PACKAGE.parent / "ARCHITECTURE.md").read_text()
    missing = [p for p in set().union(*LAYERS) - {"", "__main__"} if f"`{p}" not in text]
    assert not missing, f"ARCHITECTURE.md does not describe: {missing}"


def test_long_modules_warn() -> None:
    long = {
        name: n
        for name, path in _modules().items()
        if (n := len(path.read_text().splitlines())) > SOFT_MODULE_LINES
    }
    if long:  # one concept per module is the rule; length only hints that a module holds two
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.warn(f"modules over {SOFT_MODULE_LINES} lines: {long}", stacklevel=1)


def _statements(fn: ast.AST) -> int:
    """Statements in a function's body, nested ones included, nested functions excluded."""
    count = 0
    todo = list(getattr(fn, "body", []))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.stmt):
            count += 1
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            todo.extend(getattr(node, field, []))
    return count


def test_functions_are_short() -> None:
    long = {}
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            is_function = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            if is_function and (n := _statements(node)) > MAX_FUNCTION_STATEMENTS:
                long[f"{name}.{getattr(node, 'name', '')}"] = n
    assert not long, f"functions over {MAX_FUNCTION_STATEMENTS} statements: {long}"


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = node.args
    return [x.arg for x in [*a.posonlyargs, *a.args, *a.kwonlyargs] if x.arg not in ("self", "cls")]


def _definitions() -> list[tuple[str, list[str]]]:
    """Every function definition of the package: its name and its parameters."""
    out = []
    for path in _modules().values():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                out.append((node.name, _parameters(node)))
    return out


def test_an_option_is_written_in_at_most_two_definitions() -> None:
    """Each family's options are declared once (core/options.py); a public option is then a
    parameter of the public function and at most one more definition (its export), median
    over the parameters of the public functions (it was 5 before the declarations)."""
    import inspect
    import statistics

    import discosql as ds

    public = [getattr(ds, n) for n in ds.__all__ if inspect.isfunction(getattr(ds, n))]
    options = {p for f in public for p in inspect.signature(f).parameters}
    defs = _definitions()
    counts = [sum(1 for _, names in defs if o in names) for o in options]
    assert statistics.median(counts) <= 2


def test_no_internal_function_takes_more_than_ten_parameters() -> None:
    """An internal function passes a family's options as one object, not one by one."""
    import discosql as ds

    public = set(ds.__all__)
    many = {name: len(p) for name, p in _definitions() if len(p) > 10 and name not in public}
    assert not many


def test_the_version_has_one_home() -> None:
    import tomllib

    import discosql

    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["project"]
    assert discosql.__version__ == project["version"]
    assert "version" not in project.get("dynamic", [])


# Dialect facts live in one table (discosql/sql/dialects.py::FACTS); only that module may look
# at a dialect's name (the templates' macros read its spellings through spelling()). Engine URL
# schemes are not dialects.
DIALECT_NAMES = {
    "duckdb",
    "postgres",
    "postgresql",
    "spark",
    "databricks",
    "sqlite",
    "bigquery",
    "snowflake",
    "trino",
    "tsql",
    "datafusion",
}
DIALECT_HOME = "discosql.sql.dialects"
TEMPLATES = PACKAGE.parent / "sql_templates"


def _names_a_dialect(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.lower() in DIALECT_NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_a_dialect(e) for e in node.elts)
    return False


def _is_dialect(node: ast.expr) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return "dialect" in str(name).lower()


def _dialect_comparisons(tree: ast.AST) -> list[int]:
    """Lines that compare a dialect (a name or attribute called *dialect*) or a dialect's
    name (a string constant) with ``==``, ``!=``, ``in`` or a ``case``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(_names_a_dialect(e) or _is_dialect(e) for e in [node.left, *node.comparators]):
                lines.append(node.lineno)
        elif isinstance(node, ast.match_case):
            pattern = node.pattern
            if isinstance(pattern, ast.MatchValue) and _names_a_dialect(pattern.value):
                lines.append(pattern.lineno)
    return lines


def test_no_dialect_name_is_compared_outside_the_dialect_table() -> None:
    found = {}
    for name, path in _modules().items():
        if name != DIALECT_HOME and (lines := _dialect_comparisons(ast.parse(path.read_text()))):
            found[name] = lines
    assert not found, f"dialects compared outside {DIALECT_HOME} (use its FACTS): {found}"
    in_templates = re.compile(r"dialect\s*(==|!=|\bin\b|\bnot in\b)|\{\{[^}]*\bdialect\b")
    for template in sorted(TEMPLATES.rglob("*.j2")):
        assert not in_templates.search(template.read_text()), template


def test_the_dialect_check_finds_comparisons() -> None:
    caught = [
        'if dialect == "tsql": pass',
        'x = self.dialect in ("spark", "databricks")',
        'y = "postgres" != engine.kind',
        'match d:\n    case "duckdb":\n        pass',
    ]
    for source in caught:
        assert _dialect_comparisons(ast.parse(source)), source
    assert not _dialect_comparisons(ast.parse("if facts(d).grouping_sets: pass"))


SENTINELS = {"radices", "decided"}  # values decided ahead for a script, never the mode's sign


def _sentinel_tests(tree: ast.AST) -> list[int]:
    """Lines that tell an export from a run by ``radices``/``decided`` being None (the engine
    says it: ``engine.exporting``)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and all(
            isinstance(op, ast.Is | ast.IsNot) for op in node.ops
        ):
            operands = [node.left, *node.comparators]
            named = [getattr(e, "attr", getattr(e, "id", None)) for e in operands]
            none = any(isinstance(e, ast.Constant) and e.value is None for e in operands)
            if none and SENTINELS & set(named):
                lines.append(node.lineno)
    return lines


def test_export_mode_is_read_from_the_engine() -> None:
    found = {}
    for name, path in _modules().items():
        if lines := _sentinel_tests(ast.parse(path.read_text())):
            found[name] = lines
    assert not found, f"export mode guessed from radices/decided (use engine.exporting): {found}"
    assert _sentinel_tests(ast.parse("if plans[0].radices is not None: pass"))
    assert _sentinel_tests(ast.parse("script = decided is not None"))
    assert not _sentinel_tests(ast.parse("if engine.exporting: pass"))


# the worked examples' new files: the only paths a recipe may name that do not exist yet
RECIPE_NEW_FILES = {
    "sql_templates/risk/tcloseness.sql.j2",
    "discosql/engines/trino.py",
    "discosql/report/sections/utility.py",
    "discosql/report/html/sections/utility.html.j2",
}


def test_each_contributing_recipe_lists_files_that_exist() -> None:
    """docs/contributing.md: each recipe's numbered steps name the files to touch (one per
    step, a path in backticks), every one of them an existing file but the worked example's
    new ones (no cap on their number: the recipes list every file a change of the kind
    touches)."""
    text = (PACKAGE.parent / "docs" / "contributing.md").read_text()
    recipes = re.split(r"^## ", text, flags=re.M)[1:]
    assert [r.splitlines()[0] for r in recipes] == [
        "Add a measure",
        "Add an engine",
        "Add a report section",
    ]
    for recipe in recipes:
        files = re.findall(r"^\d+\. `([^`]+)`", recipe, flags=re.M)
        assert files, recipe.splitlines()[0]
        for f in files:
            path = PACKAGE.parent / f
            assert path.is_file() or (f in RECIPE_NEW_FILES and path.parent.is_dir()), f


def test_exports_share_one_home() -> None:
    """What every export shares lives in core/export.py: no family's export reaches into
    another's, and risk/ imports nothing of measure/ (it did, for the script helpers)."""
    modules = _modules()
    known = set(modules)
    for name, path in modules.items():
        imported = _imports(name, path, known)
        if name.endswith(".export"):
            others = {t for t in imported if t.endswith(".export")} - {"discosql.core.export"}
            assert not others, (name, others)
        if name.startswith("discosql.risk"):
            assert not {t for t in imported if t.startswith("discosql.measure")}, name


def _test_module_imports(source: str) -> list[str]:
    """The test modules (test_*) a module's source imports, relative or absolute."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            names = [a.name for a in node.names]
            if any(p.startswith("test_") for p in parts) or any(
                n.startswith("test_") for n in names
            ):
                found.append(f"from {'.' * node.level}{node.module or ''} import {names}")
        elif isinstance(node, ast.Import):
            found += [
                a.name for a in node.names if any(p.startswith("test_") for p in a.name.split("."))
            ]
    return found


def test_no_test_module_imports_another() -> None:
    """What tests share lives in tests/helpers/ (or the references beside it), never in a test
    module: 0 imports of one test module by another."""
    tests = PACKAGE.parent / "tests"
    wrong = {
        str(p.relative_to(tests)): found
        for p in sorted(tests.rglob("*.py"))
        if (found := _test_module_imports(p.read_text()))
    }
    assert not wrong, wrong
    assert _test_module_imports("from ..risk.test_risk import _close") != []
    assert _test_module_imports("from .test_cap import SMOKER_O") != []
    assert _test_module_imports("from .helpers.compare import close") == []
