"""notifications imports downward: no module of it imports, at its top or inside a function,
a module that imports it back (directly or round a longer circle).

The email writer, the channels' package, the digest and the channels' wording once imported one
another (emails ↔ channels/__init__ ↔ digest ↔ messages), held together by imports hidden in
functions; and the emailed links reached into the game page's views for their 429 page. Now
the bottom modules (``models``, ``links``, ``reader``, the ``channels`` package's exceptions)
import nothing above them, the senders' registry (``senders``) stands above the senders, and the
429 page lives with the counter in ``games.ratelimit``.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
APP = "notifications"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """The app's modules but its migrations (which Django loads on its own)."""
    found = {}
    for path in sorted((REPO_ROOT / APP).rglob("*.py")):
        if "migrations" not in path.relative_to(REPO_ROOT).parts:
            found[module_name(path)] = path
    return found


def _absolute(name: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The app's modules ``name`` imports anywhere in its source (a function's imports too, and
    ``import_module`` of a literal name); ``from pkg import mod`` counts as ``pkg.mod``. Every
    module imports its parent packages too: Python runs their ``__init__`` first."""
    targets: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, path, node)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                targets.append(submodule if submodule in known else base)
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            targets.append(str(node.args[0].value))
    parts = name.split(".")
    targets += [".".join(parts[:i]) for i in range(1, len(parts))]
    found = set()
    for target in targets:
        while target and target not in known:  # a name inside a module: the module
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)
    return found


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imported(name, path, known) for name, path in found.items()}


def cycle_in(edges: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``edges`` (its modules in order, the first again at the end), or
    None: a depth-first search that meets a module still on its path has found one."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = "open"
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        state[node] = "done"
        path.pop()
        return None

    for start in sorted(edges):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def test_the_graph_sees_the_imports_it_must() -> None:
    edges = graph()
    # a function's import, a relative one, a module imported by ``from package import``
    assert "notifications.outbox" in edges["notifications.apps"]
    assert "notifications.channels.email" in edges["notifications.senders"]
    assert "notifications.reader" in edges["notifications.emails"]
    # a sender's parent package runs first
    assert "notifications.channels" in edges["notifications.channels.push"]


def test_the_check_finds_a_circle_hidden_in_a_function() -> None:
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle_in({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_notifications_has_no_import_circle() -> None:
    found = cycle_in(graph())
    assert found is None, "an import circle in notifications: " + " -> ".join(found or [])


def test_the_bottom_modules_import_nothing_above_them() -> None:
    edges = graph()
    assert edges["notifications.reader"] <= {"notifications", "notifications.models"}
    assert edges["notifications.channels"] <= {"notifications", "notifications.models"}
    assert "notifications.senders" not in edges["notifications.emails"]


def test_no_module_of_notifications_imports_the_game_pages_views() -> None:
    found = [
        f"{name}: {node.module}"
        for name, path in modules().items()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("games.views")
    ]
    assert found == []
