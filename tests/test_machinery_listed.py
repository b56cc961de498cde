"""docs/live.md "Machinery" lists every thread pool, kept client, process cache, collector setting and hand-written
SQL statement of the site's code, so that the page cannot drift from the code: each is found in the source (by
its name given to kernel/pools.py, its decorator, or its cursor call) and must be named on a line of that section.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = {".venv", "tests", "bench", "scripts", "migrations", "node_modules", "static", "templates", "docs"}
SQL_PACKAGES = ("games", "kernel", "ledger")
POOL_CALLS = {"thread_pool", "kept", "kept_in_thread", "ProcessCache"}
CACHE_DECORATORS = {"cache", "lru_cache"}
STATEMENT_BUILDERS = {"Insert", "Update", "UpdateInsert", "InsertColumns"}  # kernel/statements.py
SQL_CALLS = {"rows_fetch", "RawSQL"}


def _section() -> str:
    text = (ROOT / "docs" / "live.md").read_text(encoding="utf-8")
    start = text.index("\n## Machinery")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _sources() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if SKIPPED & set(relative.parts) or len(relative.parts) < 2:
            continue
        yield relative.as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _name(func: ast.expr) -> str | None:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _owners(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """Each node with the name of the top-level function, class or constant it is in."""
    for top in tree.body:
        if isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            owner = top.name
        elif isinstance(top, ast.Assign | ast.AnnAssign):
            target = top.targets[0] if isinstance(top, ast.Assign) else top.target
            names = [t for t in (target.elts if isinstance(target, ast.Tuple) else [target]) if isinstance(t, ast.Name)]
            owner = names[0].id if names else ""
        else:
            continue
        for node in ast.walk(top):
            yield owner, node


def _literal(arg: ast.expr) -> str | None:
    """A string argument, or the fixed start of an f-string one (``f"publish-{n}"``: ``publish``)."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        return str(arg.values[0].value).rstrip("-_.")
    return None


def machinery() -> set[tuple[str, str]]:
    """(file, name) of each piece: a pool, kept client or process cache by the name kernel/pools.py is given; a
    functools cache, a ThreadPoolExecutor made elsewhere and a hand-written statement by the function or
    constant they are in."""
    found: set[tuple[str, str]] = set()
    for path, tree in _sources():
        for owner, node in _owners(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for decorator in node.decorator_list:
                    called = decorator.func if isinstance(decorator, ast.Call) else decorator
                    if _name(called) in CACHE_DECORATORS:
                        found.add((path, node.name))
            if not isinstance(node, ast.Call):
                continue
            name = _name(node.func)
            if name in POOL_CALLS and path != "kernel/pools.py" and node.args:
                label = _literal(node.args[0])
                assert label, f"{path} {owner}: give kernel/pools.py a name written out"
                found.add((path, label))
            elif name == "ThreadPoolExecutor" and path != "kernel/pools.py":
                found.add((path, owner))
            elif path.startswith(SQL_PACKAGES) and path != "kernel/statements.py":
                on_cursor = isinstance(node.func, ast.Attribute) and _name(node.func.value) == "cursor"
                if (on_cursor and name in ("execute", "copy")) or name in SQL_CALLS or name in STATEMENT_BUILDERS:
                    found.add((path, owner))
    return found


def test_every_pool_cache_client_and_statement_is_listed_in_the_machinery_section() -> None:
    lines = _section().splitlines()
    missing = sorted(
        (path, name)
        for path, name in machinery()
        if not any(f"`{path}`" in line and f"`{name}`" in line for line in lines)
    )
    assert not missing, f'docs/live.md "Machinery" does not list: {missing}'
    assert "`collector_settle`" in _section() and "`GC_THRESHOLDS`" in _section()


def test_the_section_names_nothing_that_is_gone() -> None:
    """Each file and test the section names is there, and each name given beside a file of the code is still in
    one of the files on its line."""
    for line in _section().splitlines():
        cells = re.findall(r"`([^`]+)`", line)
        paths = [c for c in cells if c.endswith((".py", "/")) and "/" in c]
        for path in paths:
            assert (ROOT / path).exists(), f"{path} is not there (docs/live.md: {line.strip()[:80]})"
        code = [(ROOT / path).read_text(encoding="utf-8") for path in paths if not path.startswith("tests/")]
        for name in cells:
            if code and name not in paths and re.fullmatch(r"[A-Za-z_][\w -]*", name):
                assert any(name in source for source in code), f"{name!r} is gone (docs/live.md: {line.strip()[:80]})"


def test_the_finder_sees_each_kind() -> None:
    """The finder itself: a pool, a kept client, a cache, a functools cache and statements are all found."""
    found = machinery()
    for expected in [
        ("games/live/consumer.py", "socket-db"),
        ("games/live/publish.py", "publish"),
        ("kernel/cache.py", "cache"),
        ("games/live/layer.py", "redis command"),
        ("games/selectors/states.py", "hand states"),
        ("games/services/locking.py", "table_lock_with_rules"),
        ("games/services/hands.py", "_HAND_STEP"),
        ("ledger/exports.py", "copy_csv"),
    ]:
        assert expected in found, expected
