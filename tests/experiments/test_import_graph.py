"""The import graph of ``ltrrepro/`` and ``experiments/`` counting every import statement,
function-level ones included (an ``ast`` walk over every node): it has no circle, the library
never imports the experiments, the wing's ground floor imports only itself and the library, and
a paper package imports only the ground floor, its own modules and the library.

(The registry finds the paper packages' ``studies`` modules and installed studies at run time,
by name — ``importlib.import_module`` and entry points — which is discovery, not an import edge.)
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("ltrrepro", "experiments")
#: the wing's ground floor: what every paper package and every upper module may import
GROUND = frozenset(f"experiments.{m}" for m in ("errors", "values", "options", "shared_fields", "config", "execution",
                                                 "registry", "analysis", "results"))
PAPERS = ("bruch2021", "zheng2007", "xia")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _edges(name: str, path: Path, known) -> set[str]:
    """The project modules ``name`` imports anywhere in its file (relative imports resolved;
    ``from pkg import sub`` is an edge to the submodule where ``pkg.sub`` is one)."""
    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_pkg else name.split(".")[:-1]
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:            # a name inside a module: the module
                t = t.rpartition(".")[0]
            if t and t != name:
                out.add(t)
    return out


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {name: _edges(name, path, mods) for name, path in mods.items()}


def _cycle(graph) -> list[str]:
    """One circle of ``graph`` (a list of modules, the first repeated at the end), or []."""
    state, stack = {}, []

    def visit(n):
        state[n] = "open"
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == "open":
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        state[n] = "done"
        stack.pop()
        return []

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return []


def test_the_graph_sees_function_level_imports():
    graph = _graph()
    assert "experiments.study" in graph["experiments"]            # experiments.run imports it inside the function
    assert "ltrrepro.migrations" in graph["ltrrepro.store"]        # a relative import, resolved


def test_no_circle_counting_function_level_imports():
    assert _cycle(_graph()) == []
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]     # the check can fail


def test_the_library_never_imports_the_experiments():
    graph = _graph()
    assert {(m, t) for m, ts in graph.items() if m.startswith("ltrrepro") for t in ts
            if t.startswith("experiments")} == set()


def test_the_ground_floor_imports_only_itself_and_the_library():
    graph = _graph()
    assert GROUND <= set(graph)
    assert {(m, t) for m in GROUND for t in graph[m] if t.startswith("experiments") and t not in GROUND} == set()


def test_paper_packages_import_only_the_ground_floor_their_own_modules_and_the_library():
    graph = _graph()
    for paper in PAPERS:
        own = f"experiments.{paper}"
        mods = [m for m in graph if m == own or m.startswith(own + ".")]
        assert mods, paper
        upward = {(m, t) for m in mods for t in graph[m] if t.startswith("experiments")
                  and t not in GROUND and not (t == own or t.startswith(own + "."))}
        assert upward == set(), paper
