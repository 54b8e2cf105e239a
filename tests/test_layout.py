"""The package's shape: packages by capability whose imports go one way (ARCHITECTURE.md), no
import cycles, functions small enough to read, modules of one concept (a warning past 600 lines).

Every import statement counts, including those inside functions and under TYPE_CHECKING: a
lazy import hides a cycle from Python, not from the reader.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "discosql"
SOFT_MODULE_LINES = 600  # past this, a module probably holds two concepts: a warning, not a rule
MAX_FUNCTION_STATEMENTS = 60

# The layers, lowest first; a module may import its own package and any lower layer, never a
# higher one or a peer on its own layer. errors and version sit below everything; the package's
# __init__ (the public API) and __main__ above everything.
LAYERS: list[set[str]] = [
    {"errors", "version"},
    {"sql"},
    {"engines"},
    {"core"},
    {"measure"},
    {"protect", "sweep", "risk"},
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


def test_the_version_has_one_home() -> None:
    import tomllib

    import discosql

    project = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["project"]
    assert discosql.__version__ == project["version"]
    assert "version" not in project.get("dynamic", [])
