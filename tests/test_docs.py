"""The documentation is tested: every example of README.md and docs/*.md runs, shows its real
output, and every relative link leads somewhere.

The conventions (documented in docs/testing.md, "The documentation is tested"):

* A fenced block whose language is ``python``, ``bash``, ``sh`` or ``console`` is run, unless its
  info string holds the word ``no-run`` (```` ```bash no-run ````): blocks that need a server,
  install packages or take minutes.
* An ```` ```output ```` block right after a run block (only blank lines between) is that
  block's expected standard output. Lines are compared with trailing whitespace stripped and
  leading and trailing blank lines ignored; a line ``...`` matches any run of lines (none too).
  An ``output`` block anywhere else is an error. Other languages (``text``, ``sql``, ...) are
  shown, not run. Every fenced block names its language.
* Each page runs in a fresh temporary directory holding a copy of the bundled data in
  ``data/`` (``sd2011.parquet``, ``syn_1.parquet`` ... ``syn_5.parquet``). Its python blocks
  share one namespace, in page order (like a notebook); each shell block runs with
  ``bash -e -o pipefail`` in the same directory, with the ``discosql`` command and the
  ``python`` next to this interpreter first on PATH.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINKED_PAGES = [
    *DOC_PAGES,
    ROOT / "ARCHITECTURE.md",
    ROOT / "CHANGELOG.md",
    ROOT / "benchmarks" / "README.md",
]
RUN_LANGUAGES = {"python", "bash", "sh", "console"}
OUTPUT_LANGUAGE = "output"
NO_RUN = "no-run"
SHELL_TIMEOUT = 300
# Development history belongs in CHANGELOG.md and benchmarks/README.md, not in the user pages.
HISTORY_WORDS = re.compile(
    r"\b(this|previous|last|earlier|next) rounds?\b|\brounds? ago\b|\brounds' runs\b",
    re.IGNORECASE,
)

FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")


def _label(page: Path) -> str:
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else page.name


# --- fenced blocks -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """One fenced block: its opening line (1-based), info string and text."""

    line: int
    end: int  # the line of the closing fence
    info: str
    code: str
    expected: str | None = None  # the text of the output block that follows it, if any

    @property
    def language(self) -> str:
        words = self.info.split()
        return words[0] if words else ""

    @property
    def runs(self) -> bool:
        return self.language in RUN_LANGUAGES and NO_RUN not in self.info.split()


def _raw_blocks(text: str, label: str) -> list[Block]:
    lines = text.splitlines()
    raw: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m["indent"]), m["fence"], m["info"].strip()
        close = re.compile(rf"^ *{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            line = lines[j]
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))) :])
            j += 1
        if j == len(lines):
            raise ValueError(f"{label}:{i + 1}: the fenced block is never closed")
        raw.append(Block(i + 1, j + 1, info, "\n".join(body) + "\n"))
        i = j + 1
    return raw


def fenced_blocks(text: str, label: str = "<page>") -> list[Block]:
    """Every fenced block of a Markdown text, output blocks attached to the block they follow."""
    lines = text.splitlines()
    raw = _raw_blocks(text, label)
    blocks: list[Block] = []
    for block in raw:
        if not block.language:
            raise ValueError(f"{label}:{block.line}: a fenced block without a language")
        if block.language != OUTPUT_LANGUAGE:
            blocks.append(block)
            continue
        before = blocks[-1] if blocks else None
        between = lines[before.end : block.line - 1] if before else []
        if (
            before is None
            or not before.runs
            or before.expected is not None
            or any(line.strip() for line in between)
        ):
            raise ValueError(
                f"{label}:{block.line}: an output block must follow a block that runs "
                "(only blank lines between); show other text as ```text"
            )
        blocks[-1] = Block(before.line, before.end, before.info, before.code, block.code)
    return blocks


# --- comparing output --------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def output_matches(expected: str, actual: str) -> bool:
    """Whether the printed text matches the shown output (``...`` lines match any lines)."""
    want, got = _lines(expected), _lines(actual)

    @cache
    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i] == "...":
            return any(match(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and want[i] == got[j] and match(i + 1, j + 1)

    return match(0, 0)


def _difference(expected: str, actual: str) -> str:
    diff = difflib.unified_diff(
        _lines(expected), _lines(actual), "shown", "printed", lineterm="", n=2
    )
    return "\n".join(diff)


# --- running a page ----------------------------------------------------------------------------


def bundled_data() -> Path:
    """The bundled SD2011 data, where ``discosql demo`` finds it."""
    return Path(str(resources.files("discosql"))) / "data"


def prepare_workdir(workdir: Path) -> None:
    """A fresh page directory: the bundled Parquet files in data/."""
    (workdir / "data").mkdir()
    for parquet in sorted(bundled_data().glob("*.parquet")):
        shutil.copy(parquet, workdir / "data" / parquet.name)


def _shell_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["MPLBACKEND"] = "Agg"
    return env


def _run_python(code: str, namespace: dict[str, object], where: str) -> str:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, where, "exec"), namespace)
    except Exception as exc:
        raise AssertionError(
            f"{where}: the python block failed: {type(exc).__name__}: {exc}\n"
            f"printed before:\n{out.getvalue()}"
        ) from exc
    return out.getvalue()


def _run_shell(code: str, workdir: Path, where: str) -> str:
    proc = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", code],
        cwd=workdir,
        env=_shell_env(),
        capture_output=True,
        text=True,
        timeout=SHELL_TIMEOUT,
        check=False,
    )
    if proc.returncode != 0:
        raise AssertionError(
            f"{where}: the shell block exited with {proc.returncode}\n"
            f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    return proc.stdout


def run_page(text: str, workdir: Path, label: str) -> int:
    """Run a page's blocks in order in workdir; fail on an error or a different output.

    Returns the number of blocks run.
    """
    namespace: dict[str, object] = {"__name__": "__main__"}
    ran = 0
    cwd = Path.cwd()
    os.chdir(workdir)
    try:
        for block in fenced_blocks(text, label):
            if not block.runs:
                continue
            where = f"{label}:{block.line}"
            if block.language == "python":
                printed = _run_python(block.code, namespace, where)
            else:
                printed = _run_shell(block.code, workdir, where)
            ran += 1
            if block.expected is not None and not output_matches(block.expected, printed):
                raise AssertionError(
                    f"{where}: the output differs from the page's output block "
                    f"(run the block and paste its output):\n"
                    f"{_difference(block.expected, printed)}"
                )
    finally:
        os.chdir(cwd)
    return ran


# --- links -------------------------------------------------------------------------------------

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^()\s<>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.MULTILINE)
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def _without_code(text: str, label: str = "<page>") -> str:
    """The text with fenced blocks blanked (line numbers kept)."""
    lines = text.splitlines()
    for block in _raw_blocks(text, label):
        for k in range(block.line - 1, block.end):
            lines[k] = ""
    return "\n".join(lines)


def github_slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text, lower case, punctuation dropped, '-' for ' '."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def heading_anchors(text: str) -> set[str]:
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for line in _without_code(text).splitlines():
        m = HEADING.match(line)
        if not m:
            continue
        slug = github_slug(m[1])
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """Every relative link of a Markdown page whose file or heading does not exist."""
    text = page.read_text(encoding="utf-8")
    prose = _without_code(text, _label(page))
    prose = re.sub(r"(`+)(?:(?!\1).)+?\1", lambda m: " " * len(m[0]), prose, flags=re.DOTALL)
    targets = [(m.start(1), m[1]) for m in LINK.finditer(prose)]
    targets += [(m.start(1), m[1]) for m in REFERENCE.finditer(prose)]
    problems = []
    for start, target in sorted(targets):
        if SCHEME.match(target):  # http(s), mailto: not checked here
            continue
        where = f"{_label(page)}:{prose.count(chr(10), 0, start) + 1}: ({target})"
        path, _, anchor = target.partition("#")
        path = unquote(path)
        if not path:
            dest = page
        elif path.startswith("/"):
            dest = root / path.lstrip("/")
        else:
            dest = page.parent / path
        if not dest.exists():
            problems.append(f"{where}: no file {path}")
        elif (
            anchor
            and dest.suffix == ".md"
            and dest.is_file()
            and unquote(anchor) not in heading_anchors(dest.read_text(encoding="utf-8"))
        ):
            problems.append(f"{where}: no heading #{anchor} in {dest.name}")
    return problems


# --- the tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("page", DOC_PAGES, ids=_label)
def test_page_examples_run_and_show_their_output(page: Path, tmp_path: Path) -> None:
    prepare_workdir(tmp_path)
    run_page(page.read_text(encoding="utf-8"), tmp_path, _label(page))


@pytest.mark.parametrize("page", LINKED_PAGES, ids=_label)
def test_relative_links_lead_somewhere(page: Path) -> None:
    assert page.is_file(), f"{_label(page)} is missing"
    assert broken_links(page) == []


def test_the_docs_index_lists_every_page() -> None:
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    linked = {Path(m[1].partition("#")[0]).name for m in LINK.finditer(index)}
    pages = {p.name for p in DOC_PAGES if p.parent.name == "docs" and p.name != "README.md"}
    assert pages - linked == set(), "docs/README.md does not link to these pages"


def test_user_pages_carry_no_development_history() -> None:
    found = [
        f"{_label(page)}:{n}: {line.strip()}"
        for page in DOC_PAGES
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if HISTORY_WORDS.search(line)
    ]
    assert found == [], "history goes to CHANGELOG.md or benchmarks/README.md"


QUICKSTART = [
    "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/discosql demo",
    "python3 -m venv .venv && .venv/bin/pip install '.[test]' && "
    ".venv/bin/python -m pytest -n auto --dist loadfile --hypothesis-profile=ci",
    '.venv/bin/python -m pytest -n auto --dist loadfile -m "postgres or spark or browser"',
]


def test_the_readme_keeps_its_quickstart_and_runnable_examples() -> None:
    """CI runs the quickstart's commands as written; the README's examples run here."""
    blocks = fenced_blocks((ROOT / "README.md").read_text(encoding="utf-8"), "README.md")
    shown = [line for b in blocks if not b.runs for line in b.code.splitlines()]
    for command in QUICKSTART:
        assert command in shown, f"the quickstart command {command!r} is gone"
    assert sum(b.runs and b.expected is not None for b in blocks) >= 3


# --- the checkers themselves can fail ----------------------------------------------------------


def test_output_comparison() -> None:
    assert output_matches("a\nb\n", "a\nb")
    assert output_matches("a  \n\nb\n", "\na\n\nb   \n\n")  # trailing spaces, outer blank lines
    assert not output_matches("a\nb\n", "a\nc\n")
    assert not output_matches("a\n", "a\nb\n")  # a missing line is a difference
    assert not output_matches("a\nb\n", "a\n")
    assert output_matches("a\n...\nd\n", "a\nb\nc\nd\n")  # ... is any run of lines
    assert output_matches("a\n...\nb\n", "a\nb\n")  # ... or none
    assert output_matches("...\n", "anything\nat all\n")
    assert not output_matches("a\n...\nd\n", "a\nb\nc\n")
    assert not output_matches(" a\n", "a\n")  # leading whitespace counts


def test_blocks_and_outputs_are_paired() -> None:
    text = (
        "# t\n\n```python\nprint(1)\n```\n\n```output\n1\n```\n\n"
        "```bash no-run\npip install x\n```\n\n```text\nshown\n```\n"
    )
    blocks = fenced_blocks(text)
    assert [(b.language, b.runs, b.expected) for b in blocks] == [
        ("python", True, "1\n"),
        ("bash", False, None),
        ("text", False, None),
    ]
    for bad in (
        "```bash no-run\nx\n```\n```output\ny\n```\n",  # after a block that does not run
        "```python\nx\n```\nprose\n```output\ny\n```\n",  # not right after
        "```\nx\n```\n",  # no language
        "```python\nx\n",  # never closed
    ):
        with pytest.raises(ValueError):  # noqa: PT011 (the messages differ)
            fenced_blocks(bad)


def test_a_page_that_drifts_fails(tmp_path: Path) -> None:
    good = (
        "```python\nx = 6 * 7\nprint(x)\n```\n\n```output\n42\n```\n\n"
        "```bash\necho from bash\n```\n\n```output\nfrom bash\n```\n"
    )
    assert run_page(good, tmp_path, "good.md") == 2
    drifted = "```python\nprint(6 * 7)\n```\n\n```output\n41\n```\n"
    with pytest.raises(AssertionError, match="differs"):
        run_page(drifted, tmp_path, "drifted.md")
    shared = "```python\nx = 1\n```\n\n```python\nprint(x + 1)\n```\n\n```output\n2\n```\n"
    assert run_page(shared, tmp_path, "shared.md") == 2
    with pytest.raises(AssertionError, match="exited with"):
        run_page("```sh\nfalse\necho after\n```\n", tmp_path, "shell.md")
    with pytest.raises(AssertionError, match="ZeroDivisionError"):
        run_page("```python\n1 / 0\n```\n", tmp_path, "error.md")
    assert run_page("```bash no-run\nexit 1\n```\n", tmp_path, "skipped.md") == 0
    with pytest.raises(AssertionError, match="differs"):
        run_page("```bash\ndiscosql --help\n```\n\n```output\nnothing\n```\n", tmp_path, "c.md")


def test_the_link_checker_reports_broken_links(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text(
        "# A heading: `with_code`, and more!\n\n## Twice\n## Twice\n"
    )
    page = tmp_path / "page.md"
    page.write_text(
        "[fine](other.md) [anchor](other.md#a-heading-with_code-and-more) [dup](other.md#twice-1)\n"
        "[web](https://example.org/nowhere) [mail](mailto:a@b.c) ![image](other.md)\n"
        "[here](#local) `[not a link](nowhere.md)`\n\n## Local\n\n"
        "```text\n[in code](nowhere.md)\n```\n"
        "[gone](missing.md) [bad anchor](other.md#no-such-heading)\n"
        "[split\nover lines](missing2.md)\n"
    )
    problems = broken_links(page, root=tmp_path)
    assert len(problems) == 3, problems
    assert "no file missing.md" in problems[0]
    assert "no heading #no-such-heading" in problems[1]
    assert "no file missing2.md" in problems[2]


def test_github_slugs() -> None:
    assert github_slug("Many targets at once: `disclosure_summary`") == (
        "many-targets-at-once-disclosure_summary"
    )
    assert github_slug("Where discosql differs from synthpop, on purpose") == (
        "where-discosql-differs-from-synthpop-on-purpose"
    )
    assert github_slug("[Links](x.md) and ≤ 3") == "links-and--3"
