"""The package's modules import one another without cycles (docs/architecture.md), and no two define a
class of one name: read from the source, so a cycle is found whether or not the import that closes it
ever runs."""

from __future__ import annotations

import ast
from pathlib import Path

import lesson

ROOT = Path(lesson.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


def imports(name: str, top_only: bool) -> set[str]:
    """The package's modules ``name`` imports (at its top only, or anywhere in it); a TYPE_CHECKING
    import is left out, since it never runs."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    nodes: list[ast.AST] = []
    for node in tree.body if top_only else ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        nodes.append(node)
    if not top_only:  # ast.walk went into TYPE_CHECKING blocks too: take them out
        skipped = {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for n in ast.walk(node)
        }
        nodes = [n for n in nodes if id(n) not in skipped]
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            # A submodule imported by name is an edge to it; any other name, to the module that holds it
            # (a package's __init__ too: one of its modules importing a name from it is an edge back).
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def cycles(top_only: bool, top_only_in: frozenset[str] = frozenset()) -> list[list[str]]:
    """Every cycle the search meets; ``top_only_in`` names modules whose imports inside functions are left
    out of the graph."""
    graph = {name: imports(name, top_only or name in top_only_in) for name in MODULES}
    found, done, path = [], set(), []

    def visit(name: str) -> None:
        if name in path:
            found.append(path[path.index(name) :] + [name])
            return
        if name in done:
            return
        path.append(name)
        for other in sorted(graph[name]):
            visit(other)
        path.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)
    return found


def test_no_module_imports_itself_round_a_cycle_at_its_top() -> None:
    assert cycles(top_only=True) == []


def test_the_only_cycle_through_a_function_s_import_is_the_settings_asking_the_portal() -> None:
    """settings.py asks the portal whether its values will work, inside the function that checks them
    (docs/architecture.md says why); without those imports, no import inside a function closes a cycle."""
    assert cycles(top_only=False, top_only_in=frozenset({"lesson.settings"})) == []
    assert cycles(top_only=False), "with them, the search finds that cycle"


def test_no_two_modules_define_a_class_of_one_name() -> None:
    """One name for one thing: a class name means the same wherever the package uses it."""
    where: dict[str, list[str]] = {}
    for name, path in MODULES.items():
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ClassDef):
                where.setdefault(node.name, []).append(name)
    assert {cls: mods for cls, mods in where.items() if len(mods) > 1} == {}
