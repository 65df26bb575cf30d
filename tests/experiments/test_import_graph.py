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
#: the wing's ground floor: what every paper package and every upper module may import (the tuning stage too:
#: a study declares its search as data and its unit reads its values)
GROUND = frozenset(f"experiments.{m}" for m in ("errors", "values", "options", "shared_fields", "config", "execution",
                                                 "registry", "analysis", "results", "tuning", "tuning_report"))
PAPERS = ("bruch2021", "zheng2007", "xia")
#: the library's bottom floor: each module and the only project modules it may import (the data
#: layer never imports the reader built on it, nor anything above)
BOTTOM = {"ltrrepro.fileio": set(), "ltrrepro.data": {"ltrrepro.fileio"}}
#: the runner package's layers, lowest first (see ``ltrrepro/runner/__init__.py``): a module
#: imports runner modules of lower layers only; its ``__init__`` re-exports them all
RUNNER = (("units", "record", "context"), ("dataref", "timeouts", "forkserver", "cluster"), ("isolate",),
          ("worker", "executor"), ("run",))
#: the library modules outside the runner that may import it: the child process of an isolated unit
RUNNER_USERS = frozenset({"ltrrepro.isolated"})


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


def _upward(graph, package: str, layers) -> set[tuple[str, str]]:
    """The edges of ``graph`` from a module of ``package``'s ``layers`` to one of its modules
    in the same or a higher layer (or to one of its modules no layer names)."""
    level = {f"{package}.{m}": i for i, names in enumerate(layers) for m in names}
    return {(m, t) for m, ts in graph.items() if m in level for t in ts
            if t.startswith(package + ".") and level.get(t, len(layers)) >= level[m]}


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


def test_the_bottom_floor_imports_nothing_above_it():
    graph = _graph()
    assert {m: {t for t in graph[m] if t.startswith("ltrrepro")} for m in BOTTOM} == BOTTOM


def test_the_runner_package_is_layered_and_used_by_the_upper_floors_only():
    graph = _graph()
    runner = {m for m in graph if m.startswith("ltrrepro.runner.")}
    assert runner == {f"ltrrepro.runner.{m}" for layer in RUNNER for m in layer}      # every module has a layer
    assert _upward(graph, "ltrrepro.runner", RUNNER) == set()
    assert _upward({"p.a": {"p.b"}, "p.b": {"p.c"}}, "p", (("a",), ("b",))) == {("p.a", "p.b"), ("p.b", "p.c")}
    users = {m for m, ts in graph.items() if m.startswith("ltrrepro") and not m.startswith("ltrrepro.runner")
             and any(t == "ltrrepro.runner" or t.startswith("ltrrepro.runner.") for t in ts)}
    assert users == RUNNER_USERS
