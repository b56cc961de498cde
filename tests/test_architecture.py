"""The shape of the code (docs/architecture.md): apps import only the ones below them, the engine imports
no app and no Django, and no two modules import each other, directly or around a circle, whether the import
runs when a module loads or inside a function."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grimp

ROOT = Path(__file__).resolve().parent.parent
APPS = ("engine", "kernel", "accounts", "ledger", "games", "notices", "clubhouse", "clubdata", "operations", "config")


def test_the_import_contracts_are_kept():
    """pyproject.toml [tool.importlinter]: the layers of the apps, the engine's independence, the floors inside
    games."""
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run([str(lint), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    kept = f"Contracts: {len(contracts['contracts'])} kept, 0 broken."
    assert "BROKEN" not in done.stdout and kept in done.stdout, done.stdout[-2000:]


def test_the_layers_name_every_package_and_ignore_no_import():
    """Each top-level package of the site is a layer of the contract (docs/architecture.md "The layers")."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (layers,) = [c for c in config["contracts"] if c["id"] == "apps"]
    named = {name.strip() for layer in layers["layers"] for name in layer.split("|")}
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench", "scripts"}
    assert named == packages == set(APPS) == set(config["root_packages"])
    assert not any(c.get("ignore_imports") for c in config["contracts"])


# The Django files of games (and its signals to the apps above); everything else lives in a feature package
# or a named room.
GAMES_TOP = {"__init__", "apps", "errors", "forms", "models", "routing", "signals", "tasks", "urls"}


def test_games_keeps_no_loose_module_at_its_top():
    assert {path.stem for path in (ROOT / "games").glob("*.py")} == GAMES_TOP


def test_the_floors_inside_games_name_every_part_of_games_and_ignore_no_import():
    """Each package and top module of games is on a floor of the "games-floors" contract (the contract is
    kept: test_the_import_contracts_are_kept)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (floors,) = [c for c in config["contracts"] if c["id"] == "games-floors"]
    assert floors["type"] == "layers" and floors["containers"] == ["games"] and not floors.get("ignore_imports")
    named = {name.strip() for layer in floors["layers"] for name in layer.split("|")}
    parts = {path.stem for path in (ROOT / "games").glob("*.py")} | {
        path.parent.name for path in (ROOT / "games").glob("*/__init__.py")
    }
    assert named == parts - {"__init__", "migrations"}


def _two_way_pairs(graph: dict[str, set[str]], package: str) -> set[tuple[str, str]]:
    """The pairs of parts of ``package`` (its sub-packages and top modules) that import each other."""

    def part(module: str) -> str | None:
        names = module.split(".")
        return names[1] if names[0] == package and len(names) > 1 else None

    edges = {(part(a), part(b)) for a, targets in graph.items() for b in targets}
    return {(a, b) for a, b in edges if a and b and a < b and (b, a) in edges}


def test_no_two_parts_of_games_import_each_other():
    """Inside functions too: the services tell the live wing of a commit through games/signals.py."""
    assert _two_way_pairs(_import_graph("games"), "games") == set()


def test_the_two_way_finder_finds_a_two_way_pair():
    graph = {"g.a.x": {"g.b.y"}, "g.b.y": {"g.c"}, "g.c": {"g.a.z"}, "g.a.z": set(), "g.b.w": {"g.a.x"}}
    assert _two_way_pairs(graph, "g") == {("a", "b")}


def _import_graph(*packages: str) -> dict[str, set[str]]:
    """Every import between the modules of ``packages``, made when a module loads or inside a function (a
    task's body, an ``AppConfig.ready``): grimp reads them as import-linter does. ``if TYPE_CHECKING:``
    imports are left out (they never run); so are migrations, which run alone."""
    graph = grimp.build_graph(
        *packages, include_external_packages=False, exclude_type_checking_imports=True, cache_dir=None
    )
    modules = {name for name in graph.modules if ".migrations" not in name}
    return {name: set(graph.find_modules_directly_imported_by(name)) & modules for name in modules}


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
    return groups


def test_no_import_circle_even_counting_imports_inside_functions():
    graph = _import_graph(*APPS)
    assert len(graph) > 100  # the graph holds the project
    # It sees the imports inside functions: a task's body, the notices' AppConfig.ready.
    assert "games.services.hands" in graph["games.tasks"] and "games.signals" in graph["notices.apps"]
    assert _circles(graph) == []


def test_the_import_graph_sees_a_circle_closed_inside_a_function(tmp_path, monkeypatch):
    package = tmp_path / "circle_probe"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "tasks.py").write_text("def run():\n    from circle_probe.services import work\n    return work()\n")
    (package / "services.py").write_text("def work():\n    from circle_probe import tasks\n    return tasks\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _circles(_import_graph("circle_probe")) == [["circle_probe.services", "circle_probe.tasks"]]


def test_the_circle_finder_finds_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


# Pages, sockets, tasks, template tags and presenters read through selectors and write through services
# (docs/style.md); the live table's frames (games/live/) render from a snapshot read elsewhere.
QUERY_FREE = (
    "games/views",
    "games/api/views.py",
    "games/templatetags",
    "games/presentation",
    "games/live",
    "games/tasks.py",
    "notices/views.py",
    "notices/tasks.py",
    "accounts/views.py",
    "ledger/views.py",
    "clubhouse/views.py",
    "clubdata/views.py",
)
QUERY_METHODS = frozenset(
    {
        "filter",
        "exclude",
        "select_related",
        "prefetch_related",
        "order_by",
        "values",
        "values_list",
        "annotate",
        "aggregate",
        "exists",
        "select_for_update",
        "update",
        "get_or_create",
        "update_or_create",
        "bulk_create",
        "first",
        "last",
        "count",
    }
)


def _queries(source: str) -> list[str]:
    """Each queryset step in ``source``, by line: ``X.objects`` and a call of the ORM's own methods (not
    a dict's ``values()`` or ``update({...})``, a list's ``count(x)``, nor a template library's
    ``register.filter``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "objects":
            found.append(f"{node.lineno}: .objects")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in QUERY_METHODS:
            name, receiver = node.func.attr, node.func.value
            if (
                (name in ("values", "values_list") and not (node.args or node.keywords))
                or (name == "update" and not node.keywords)
                or (name == "count" and node.args)
                or (isinstance(receiver, ast.Name) and receiver.id == "register")
            ):
                continue
            found.append(f"{node.lineno}: .{name}")
    return sorted(found)


def _found_in(paths: list[Path], finder: Callable[[str], list[Any]]) -> dict[str, list[Any]]:
    """What ``finder`` finds in each file's source, by the file's path in the repo (files where it finds nothing
    left out)."""
    found = {str(path.relative_to(ROOT)): finder(path.read_text(encoding="utf-8")) for path in paths}
    return {path: lines for path, lines in found.items() if lines}


def test_pages_sockets_tasks_tags_and_presenters_build_no_queryset():
    paths = [
        path
        for name in QUERY_FREE
        for path in ((ROOT / name).rglob("*.py") if (ROOT / name).is_dir() else [ROOT / name])
    ]
    assert len(paths) > 10
    assert _found_in(paths, _queries) == {}


def test_the_query_finder_finds_a_query():
    found = _queries(
        "rows = Hand.objects.all()\nok = table.hands.filter(pk=1).exists()\nn = len(rows)\n"
        "ids = seat.hands.values('pk')\nout = {}\nout.update({'a': 1})\nx = out.values()\n"
    )
    assert found == ["1: .objects", "2: .exists", "2: .filter", "4: .values"]


LONGEST_FUNCTION = 80  # lines, decorators left out: past it, a function reads better as its named parts


def _long_functions(source: str) -> list[str]:
    tree = ast.parse(source)
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return [
        f"{n.name} ({n.end_lineno - n.lineno + 1} lines)"
        for n in functions
        if n.end_lineno - n.lineno + 1 > LONGEST_FUNCTION
    ]


def test_no_function_of_the_site_is_over_80_lines():
    found = {
        str(path.relative_to(ROOT)): long
        for package in APPS
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts and (long := _long_functions(path.read_text(encoding="utf-8")))
    }
    assert found == {}


def test_the_long_function_finder_finds_one():
    lines = [f"    x = {i}\n" for i in range(LONGEST_FUNCTION)]
    assert _long_functions("def short():\n" + "".join(lines[1:])) == []  # 80 lines with its def
    assert _long_functions("async def long():\n" + "".join(lines)) == [f"long ({LONGEST_FUNCTION + 1} lines)"]


def test_games_selectors_and_views_are_imported_by_feature():
    """No package ``__init__`` that re-exports: a caller names the feature's module."""
    for package in ("games/selectors", "games/views"):
        tree = ast.parse((ROOT / package / "__init__.py").read_text(encoding="utf-8"))
        assert not [node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)], package


# games/services/locking.py owns every lock on a hand row, with the lock order in its docstring.
HAND_LOCKER = "games/services/locking.py"


def _chain(node: ast.expr) -> list[str]:
    """The names a queryset chain is built from, outermost first: ``Hand.objects.filter(x).first`` gives
    ['Hand', 'objects', 'filter', 'first']."""
    names: list[str] = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        else:
            if isinstance(node, ast.Name):
                names.append(node.id)
            return names[::-1]


def _hand_locks(source: str) -> list[str]:
    """Each lock on a hand row in ``source``, by line: ``select_for_update`` on a queryset of ``Hand.objects``
    or of a table's ``hands``, or a written-out statement that locks a row of ``games_hand``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "select_for_update"
        ):
            chain = _chain(node.func.value)
            if chain[:2] == ["Hand", "objects"] or "hands" in chain:
                found.append(f"{node.lineno}: {'.'.join(chain)}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value.upper()
            if "FOR UPDATE" in text and "GAMES_HAND" in text:
                found.append(f"{node.lineno}: FOR UPDATE")
    return sorted(found)


def test_only_the_locking_module_locks_a_hand_row():
    paths = [path for app in APPS for path in (ROOT / app).rglob("*.py") if "migrations" not in path.parts]
    found = _found_in(paths, _hand_locks)
    assert found.pop(HAND_LOCKER, None)
    assert found == {}


def test_the_hand_lock_finder_finds_a_lock():
    found = _hand_locks(
        "a = Hand.objects.select_for_update().filter(pk=1).first()\n"
        "b = Hand.objects.filter(pk=1).select_for_update(of=('self',)).get()\n"
        "c = table.hands.select_for_update().first()\n"
        "d = Table.objects.select_for_update().get(pk=1)\n"
        "e = 'SELECT 1 FROM \"games_hand\" h WHERE h.id = %s FOR UPDATE OF h'\n"
        "f = 'SELECT 1 FROM \"games_table\" FOR UPDATE'\n"
    )
    assert found == [
        "1: Hand.objects",
        "2: Hand.objects.filter",
        "3: table.hands",
        "5: FOR UPDATE",
    ]


def _wide_locks(source: str) -> list[int]:
    """The lines of each ``select_for_update()`` without ``of=`` on a queryset that also joins other rows
    (``select_related``): PostgreSQL then locks every joined row too, a club's or a rule version's that every
    table shares, and unrelated tables wait for each other (or deadlock, as two hand ends once did)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        calls: dict[str, ast.Call] = {}
        inner: ast.AST = node
        while isinstance(inner, (ast.Call, ast.Attribute)):
            if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute):
                calls.setdefault(inner.func.attr, inner)
            inner = inner.func if isinstance(inner, ast.Call) else inner.value
        lock = calls.get("select_for_update")
        if lock is not None and "select_related" in calls and not any(kw.arg == "of" for kw in lock.keywords):
            found.add(lock.lineno)
    return sorted(found)


def test_a_lock_that_joins_other_rows_names_its_own():
    paths = [path for app in APPS for path in (ROOT / app).rglob("*.py") if "migrations" not in path.parts]
    assert _found_in(paths, _wide_locks) == {}


def test_the_wide_lock_finder_finds_one():
    found = _wide_locks(
        "a = Table.objects.select_for_update().select_related('club').get(pk=1)\n"
        "b = Table.objects.select_related('club').select_for_update(of=('self',)).get(pk=1)\n"
        "c = Table.objects.select_for_update().get(pk=1)\n"
        "d = Table.objects.select_related('rule_version').filter(pk=1).select_for_update().first()\n"
    )
    assert found == [1, 4]
