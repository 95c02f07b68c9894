"""The layers of docs/architecture.md, checked on the import graph of the product packages
(imports inside functions included): every import goes to the same layer or one below, no
cycle, no module over 900 lines, imports inside functions only for optional dependencies."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("reference_impl", "conformance", "strategies", "oracles", "golden")

#: module prefix -> layer (the longest matching prefix decides); docs/architecture.md
LAYERS: dict[str, int] = {
    "reference_impl": 0,
    "conformance": 1,  # the package itself (an empty __init__)
    "conformance.core": 1,
    "strategies": 2,
    "oracles": 2,
    "golden": 2,
    "conformance.subjects": 3,
    "conformance.backends": 3,
    "conformance.engines": 4,
    "conformance.reporters": 5,
    "conformance.cli": 6,
    "conformance.pytest_plugin": 6,
}
#: the only modules that may be imported inside a function: optional dependencies
OPTIONAL = ("docker", "kubernetes", "cryptography")
MAX_LINES = 900
MAX_DOCSTRING_LINES = 12


def layer_of(module: str) -> int | None:
    best: tuple[int, int] | None = None
    for prefix, layer in LAYERS.items():
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > best[0]:
                best = (len(prefix), layer)
    return None if best is None else best[1]


@dataclass(frozen=True)
class Import:
    source: str  # importing module
    target: str  # imported module (a product module, or the top-level name of another)
    line: int
    in_function: bool
    text: str


def modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


MODULES = modules()


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports(module: str, path: Path) -> Iterator[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner.update(id(n) for n in ast.walk(node) if isinstance(n, (ast.Import,
                                                                        ast.ImportFrom)))
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module if is_pkg else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            names = [f"{base}.{a.name}" for a in node.names] or [base]
            # `from pkg import submodule` imports the submodule; `from mod import name` the mod
            names = [n if n in MODULES else base for n in names]
        else:
            continue
        for n in names:
            target = _resolve(n) or n.split(".")[0]
            if target != module:
                yield Import(module, target, node.lineno, id(node) in inner,
                             ast.get_source_segment(path.read_text(encoding="utf-8"), node)
                             or "")


ALL_IMPORTS = [i for m, p in MODULES.items() for i in imports(m, p)]


def test_every_module_has_a_layer() -> None:
    assert [m for m in MODULES if layer_of(m) is None] == []


def test_imports_go_down_the_layers() -> None:
    up = [f"{i.source} (layer {layer_of(i.source)}) imports {i.target} "
          f"(layer {layer_of(i.target)}), line {i.line}"
          for i in ALL_IMPORTS if i.target in MODULES
          and (layer_of(i.target) or 0) > (layer_of(i.source) or 0)]
    assert up == []


def test_no_import_cycle() -> None:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for i in ALL_IMPORTS:
        if i.target in MODULES:
            graph[i.source].add(i.target)
    cycles: list[list[str]] = []
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert cycles == []


def test_imports_inside_functions_only_keep_optional_dependencies_optional() -> None:
    bad = []
    for i in ALL_IMPORTS:
        if not i.in_function:
            continue
        if i.target.split(".")[0] not in OPTIONAL:
            bad.append(f"{i.source}:{i.line}: {i.text}")
            continue
        lines = MODULES[i.source].read_text(encoding="utf-8").splitlines()
        # the reason: a comment on the import's line or above its block of imports
        k = i.line - 1
        block = [lines[k]]
        while k > 0 and lines[k - 1].strip().startswith(("#", "from ", "import ")):
            k -= 1
            block.append(lines[k])
        if not any("optional" in line.lower() and "#" in line for line in block):
            bad.append(f"{i.source}:{i.line}: {i.text} (no one-line reason mentioning the "
                       "optional dependency)")
    assert bad == []


def test_no_module_over_900_lines() -> None:
    long = {m: n for m, p in MODULES.items()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_module_docstrings_are_short() -> None:
    """A module docstring says what the module holds; design essays live in docs/."""
    long = {}
    for m, p in MODULES.items():
        doc = ast.get_docstring(ast.parse(p.read_text(encoding="utf-8")), clean=False)
        if doc and len(doc.splitlines()) > MAX_DOCSTRING_LINES:
            long[m] = len(doc.splitlines())
    assert long == {}


def test_the_graph_sees_upward_and_inner_imports(tmp_path: Path) -> None:
    """A planted module of reference_impl that imports the harness inside a function."""
    fake = tmp_path / "fake.py"
    fake.write_text("def f():\n    from conformance.core.scenario import ScenarioInput\n",
                    encoding="utf-8")
    [imp] = imports("reference_impl.fake", fake)
    assert (imp.target, imp.in_function, imp.line) == ("conformance.core.scenario", True, 2)
    assert layer_of(imp.target) == 1 and layer_of(imp.source) == 0
