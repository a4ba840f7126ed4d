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
    "errors": 0, "meta": 0, "progress": 0, "files": 0, "numerics": 0,
    "expr": 1,
    "mechanisms": 2, "verifier": 2,
    "analyses": 3,
    "certificates": 4,
    "audit": 5, "sweep": 5, "bench": 5, "interop": 5,
    "cli": 6, "__main__": 6, "api": 6,
}
#: the certificate checker may import only these (besides its own package's checker modules)
CHECKER_ALLOWED = ("certdp.errors", "certdp.progress", "certdp.numerics", "certdp.expr")
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
    bad = [(m, t) for m in MODULES for t in _imports(m) if _rank(t) > _rank(m)]
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


def test_checker_closure_has_no_search_code():
    seen, todo = set(), list(CHECKER_MODULES)
    while todo:
        m = todo.pop()
        if m in seen or m not in MODULES:
            continue
        seen.add(m)
        todo.extend(_imports(m))
    bad = sorted(m for m in seen if not (m.startswith(CHECKER_ALLOWED) or m in CHECKER_MODULES))
    assert not bad, f"the checker's import closure reaches {bad}"
    src = "\n".join(MODULES[m].read_text() for m in seen)
    for forbidden in ("sympy.solve", "lambdify", "_golden_max", "mpmath.findroot"):
        assert forbidden not in src, forbidden
