"""No import circles among the project's modules: arrows point down.

The graph is read from the source with `ast`, every `import` statement counted wherever it stands (at
module level, inside a function, under `if TYPE_CHECKING:`): an import deferred into a function is
still an arrow, and a circle drawn with one is still a circle. A package's `__init__` is a module of
its own, run by every import of a module inside it (except from modules inside it already);
`from package import name` is an arrow to `package.name` when that is a module, else to the package.

Two graphs are checked: between modules, and between the parts of each package, where a subpackage
(`agent_core.tools`, `handlers.routes`) is one node: a subpackage that imports a module which imports
the subpackage back is a circle, even when no single module reaches itself. The packages are the ones
`pyproject.toml` ships, so a new package is checked as soon as it is added there.
"""

from __future__ import annotations

import ast
import functools
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def project_packages() -> list[str]:
    """The top-level packages `pyproject.toml` ships (`agent_core*` → `agent_core`)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["packages"]["find"]["include"]
    return sorted({pattern.rstrip("*").rstrip(".") for pattern in patterns})


def project_modules() -> dict[str, Path]:
    """Every module of the project's packages, by dotted name (a package by its own name)."""
    modules: dict[str, Path] = {}
    for package in project_packages():
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute name an `ImportFrom` names, its relative dots resolved against `module`."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The project module `name` runs when imported: itself, else its longest enclosing package."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _ancestors(module: str) -> list[str]:
    """`a.b.c` → `a`, `a.b`."""
    parts = module.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts))]


def imports_of(module: str, modules: dict[str, Path]) -> Iterator[str]:
    """The project modules `module` imports (and the packages those run first), anywhere in its source."""
    path = modules[module]
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        running = {module, *_ancestors(module)}  # being imported already when `module` runs
        for target in targets:
            known = _known(target, modules)
            if known is None:
                continue
            for runs in [*_ancestors(known), known]:
                if runs not in running and runs in modules:
                    yield runs


def import_graph() -> dict[str, set[str]]:
    """Module → the project modules it imports."""
    modules = project_modules()
    return {module: set(imports_of(module, modules)) for module in modules}


def part_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph with each subpackage (and everything under it) drawn as one node."""

    def part(module: str) -> str:
        return ".".join(module.split(".")[:2])

    parts: dict[str, set[str]] = {}
    for module, targets in graph.items():
        parts.setdefault(part(module), set()).update(part(t) for t in targets if part(t) != part(module))
    return parts


@functools.cache
def all_circles() -> list[list[str]]:
    """The circles between modules, then those between the parts of a package (read once a process:
    every package's test looks at the same source)."""
    graph = import_graph()
    return circles(graph) + [c for c in circles(part_graph(graph)) if c not in circles(graph)]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        # Iterative, so a long chain of imports cannot reach the recursion limit.
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def test_the_graph_sees_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    """The reader itself: a deferred import and a relative one are arrows, and a circle is found."""
    modules = {"pkg": tmp_path / "__init__.py", "pkg.a": tmp_path / "a.py", "pkg.b": tmp_path / "b.py"}
    modules["pkg"].write_text("", encoding="utf-8")
    modules["pkg.a"].write_text("from . import b\n", encoding="utf-8")
    modules["pkg.b"].write_text("def f():\n    import pkg.a.thing\n", encoding="utf-8")
    graph = {module: set(imports_of(module, modules)) for module in modules}
    assert graph == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
    assert circles(graph) == [["pkg.a", "pkg.b"]]


def test_a_subpackage_and_a_neighbour_that_import_each_other_are_a_circle(tmp_path: Path) -> None:
    """`pkg.sub.x` → `pkg.a` → `pkg.sub.y`: no module reaches itself, but the subpackage does."""
    (tmp_path / "sub").mkdir()
    modules = {
        "pkg": tmp_path / "__init__.py",
        "pkg.a": tmp_path / "a.py",
        "pkg.sub": tmp_path / "sub" / "__init__.py",
        "pkg.sub.x": tmp_path / "sub" / "x.py",
        "pkg.sub.y": tmp_path / "sub" / "y.py",
    }
    for path in modules.values():
        path.write_text("", encoding="utf-8")
    modules["pkg.a"].write_text("from .sub.y import thing\n", encoding="utf-8")
    modules["pkg.sub.x"].write_text("from .. import a\n", encoding="utf-8")
    graph = {module: set(imports_of(module, modules)) for module in modules}
    assert graph["pkg.a"] == {"pkg.sub", "pkg.sub.y"}, "the subpackage's __init__ runs first"
    assert graph["pkg.sub.x"] == {"pkg.a"}, "the enclosing packages are running already"
    assert circles(graph) == []
    assert circles(part_graph(graph)) == [["pkg.a", "pkg.sub"]]


def test_the_graph_covers_every_package() -> None:
    """Every shipped package is read, and the layers' known downward arrows are in the graph."""
    graph = import_graph()
    assert {module.split(".")[0] for module in graph} == set(project_packages())
    assert any(target.startswith("service.") for target in graph["handlers.app"] | graph["handlers.deps"])


@pytest.mark.parametrize("package", [*project_packages(), "across packages"])
def test_no_import_circles(package: str) -> None:
    """No module, and no part of a package, reaches itself through imports (module level or in functions)."""
    found = all_circles()
    if package == "across packages":
        mine = [c for c in found if len({m.split(".")[0] for m in c}) > 1]
    else:
        mine = [c for c in found if {m.split(".")[0] for m in c} == {package}]
    assert mine == []
