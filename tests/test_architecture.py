"""The layering of docs/architecture.md, checked on the source (issue #14).

Every ``import`` of a certdp module — at module level *or* inside a function
— must point down the layers (or stay in its layer), the module graph has no
cycles, and the certificate checker's import closure holds no analysis or
search code.
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PKG = ROOT / "certdp"

#: layer rank of each top-level subpackage (lower = more basic)
LAYERS = {
    "verifier": 0,  # the checker's own kernel is the base: errors, balls, exact numbers, the spec grammar
    "errors": 0, "meta": 0, "progress": 0, "files": 0, "numerics": 0,
    "expr": 1,
    "mechanisms": 2,
    "analyses": 3,
    "certificates": 4,
    "audit": 5, "sweep": 5, "bench": 5, "interop": 5,
    "cli": 6, "__main__": 6, "api": 6,
}
#: the certificate checker may import only its own package, and the expression machinery
#: for user ``profile("...")`` expressions (see test_checker_imports_only_its_own_package)
CHECKER_ALLOWED = ("certdp.verifier", "certdp.expr")
#: the one upward edge: the checker loads the safe parser and evaluator (layer 1) for
#: certificates over user ``profile("...")`` expressions only
EXPRESSION_MACHINERY = "certdp.expr"
#: checker modules that import the expression machinery at module level: the checker
#: loads them by kind (checker.KIND_HOME) or in a function, only when a certificate needs them
EXPRESSION_KIND_MODULES = ("certdp.verifier.check_iv", "certdp.verifier.check_optimum")
CHECKER_MODULES = ("certdp.verifier.checker", "certdp.verifier.check_dp", "certdp.verifier.check_exact",
                   "certdp.verifier.check_prdp", "certdp.verifier.schema", "certdp.verifier.facts",
                   "certdp.verifier.check_value", "certdp.verifier.check_pld",
                   "certdp.verifier.check_iv", "certdp.verifier.mechs",
                   "certdp.verifier.check_fdp", "certdp.verifier.check_refute",
                   "certdp.verifier.check_profile_pld", "certdp.verifier.check_optimum",
                   "certdp.verifier.check_pld_iv", "certdp.verifier.check_law_pld",
                   "certdp.verifier.slopes", "certdp.verifier.switch", "certdp.verifier.gauss",
                   "certdp.verifier.phi_fixed", "certdp.verifier.switch_iv", "certdp.verifier.check_fdp_iv",
                   "certdp.verifier.check_shuffle", "certdp.verifier.mechs_iv", "certdp.verifier.phi_series",
                   "certdp.verifier.check_profile_pld_iv", "certdp.verifier.check_law_pld_iv",
                   "certdp.verifier.check_shuffle_iv", "certdp.verifier.check_optimum_iv")


def _modules() -> dict[str, pathlib.Path]:
    out = {}
    for f in PKG.rglob("*.py"):
        parts = list(f.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The certdp module an import of ``name`` loads (longest known prefix)."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(mod: str, tree: ast.AST | None = None) -> set[str]:
    """certdp modules imported anywhere in ``mod`` (module level and function bodies;
    ``tree``: only this part of its syntax tree)."""
    tree = ast.parse(MODULES[mod].read_text()) if tree is None else tree
    pkg = mod if MODULES[mod].name == "__init__.py" else mod.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = pkg
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{base}" if base else anchor
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for n in names:
            if n == "certdp" or n.startswith("certdp."):
                target = _resolve(n)
                if target and target != mod:
                    out.add(target)
    return out


def _rank(mod: str) -> int:
    parts = mod.split(".")
    if len(parts) == 1:
        return 7  # the package's own __init__ (public API) sits on top
    return LAYERS[parts[1]]


def test_every_module_has_a_layer():
    missing = {m.split(".")[1] for m in MODULES if "." in m and m.split(".")[1] not in LAYERS}
    assert not missing, f"add these subpackages to LAYERS and docs/architecture.md: {missing}"


def test_no_upward_imports():
    bad = [(m, t) for m in MODULES for t in _imports(m) if _rank(t) > _rank(m)
           and not (m.startswith("certdp.verifier") and t.startswith(EXPRESSION_MACHINERY))]
    assert not bad, "upward imports:\n" + "\n".join(f"  {m} -> {t}" for m, t in sorted(bad))


def test_no_import_cycles():
    graph = {m: _imports(m) for m in MODULES}
    # an import of a package implies its __init__, which may import its submodules:
    # count a cycle only through explicit edges
    state: dict[str, int] = {}
    cycles = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph[m]):
            if state.get(t) == 1:
                cycles.append(stack[stack.index(t):] + [t] if t in stack else [m, t])
            elif t not in state:
                visit(t, stack + [t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    # package __init__ re-exporting a child that imports a sibling through the package is fine
    real = [c for c in cycles if not any(MODULES[x].name == "__init__.py" for x in c)]
    assert not real, "import cycles:\n" + "\n".join("  " + " -> ".join(c) for c in real)


def _outside_functions(tree: ast.AST) -> ast.AST:
    class Strip(ast.NodeTransformer):
        def visit_FunctionDef(self, node: ast.AST) -> None:
            return None

        visit_AsyncFunctionDef = visit_FunctionDef

    return Strip().visit(tree)


VERIFIER = sorted(m for m in MODULES if m == "certdp.verifier" or m.startswith("certdp.verifier."))


def test_checker_imports_only_its_own_package():
    """Issue 36: the checker imports only the standard library, python-flint, mpmath and
    its own package; the expression machinery only inside functions or from the kind
    modules that need it (loaded by kind), for user ``profile("...")`` expressions."""
    import sys

    bad = []
    for m in VERIFIER:
        tree = ast.parse(MODULES[m].read_text())
        top = _imports(m, tree=_outside_functions(tree))
        for t in _imports(m):
            if t.startswith("certdp.verifier"):
                continue
            if t.startswith(EXPRESSION_MACHINERY) and (t not in top or m in EXPRESSION_KIND_MODULES):
                continue
            bad.append((m, t))
        if m in EXPRESSION_KIND_MODULES:
            continue  # these load sympy with the expression machinery
        for node in ast.walk(_outside_functions(ast.parse(MODULES[m].read_text()))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else [])
            for n in names:
                root = n.split(".")[0]
                if root not in sys.stdlib_module_names and root not in ("flint", "mpmath", "certdp"):
                    bad.append((m, n))
    assert not bad, "the checker imports outside its package:\n" + "\n".join(f"  {m} -> {t}" for m, t in bad)


def test_checker_closure_has_no_search_code():
    seen, todo = set(), list(CHECKER_MODULES)
    while todo:
        m = todo.pop()
        if m in seen or m not in MODULES:
            continue
        seen.add(m)
        todo.extend(_imports(m))
    # the expression machinery itself builds on numerics (enclosures, Φ): no search code either
    allowed = (*CHECKER_ALLOWED, "certdp.numerics", "certdp.errors", "certdp.progress")
    bad = sorted(m for m in seen if not (m.startswith(allowed) or m in CHECKER_MODULES))
    assert not bad, f"the checker's import closure reaches {bad}"
    src = "\n".join(MODULES[m].read_text() for m in seen)
    for forbidden in ("sympy.solve", "lambdify", "_golden_max", "mpmath.findroot"):
        assert forbidden not in src, forbidden
