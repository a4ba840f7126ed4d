"""The certificate checker's import closure stays small (issue #15).

The closure is every certdp module the checker modules
(``test_architecture.CHECKER_MODULES``) can load: module-level and
function-local imports, plus the parent packages whose ``__init__`` runs on
import (``certdp verify`` adds its CLI handler, ``certdp.cli`` and
``certdp.cli.common``: 266 lines).  Run this file as a script
to print it::

    PYTHONPATH=. python tests/test_checker_closure.py

Measured (the same method on both trees): before the checker's own mechanism
table (commit 44c4352) 43 modules, 7,528 lines; with the table instead of the
catalog 35 modules, 6,542 lines; with the kinds added since (gdp_except,
not_gdp_except, not_dp from dominated PLDs, the binomial profile of pure-DP
compositions) 37 modules, 7,048 lines; with the mpmath kernel's second-order
cells and adp_not_prdp 37 modules, 7,150 lines; with the profile-pair evidence
for generic-engine answers (check_profile_pld) 38 modules, 7,318 lines; with the
switch-point and noise-refinement proofs (check_optimum, expr.monotone, the
sgd/icea naive profiles in the checker's table) 40 modules, 7,715 lines; with
heterogeneous compositions (compose_all, evidence pld_items) 40 modules, 7,849 lines;
with the DP-SGD one-step in mpmath intervals (check_pld_iv) 41 modules, 8,007 lines.
"""

from __future__ import annotations

import ast
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import test_architecture as arch  # noqa: E402

#: Upper limits: raise them only with a reason in the commit message.
MAX_MODULES = 42
MAX_LINES = 8_820


def _module_level_imports(mod: str) -> set[str]:
    """certdp modules imported by the top-level statements of ``mod`` (not inside functions)."""
    tree = ast.parse(arch.MODULES[mod].read_text())
    top = ast.Module(body=[n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))],
                     type_ignores=[])
    return arch._imports(mod, tree=top)


def closure(roots: tuple[str, ...] = arch.CHECKER_MODULES) -> dict[str, int]:
    """Module -> line count of the static import closure of ``roots``: every import
    of a reached module (function-local ones too), and every parent package,
    whose ``__init__`` runs on import; of the root package ``certdp`` only the
    module-level imports count (its PEP 562 ``__getattr__`` serves the public
    API, which the checker never touches)."""
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        m = todo.pop()
        if m in seen or m not in arch.MODULES:
            continue
        seen.add(m)
        todo.extend(_module_level_imports(m) if m == "certdp" else arch._imports(m))
        parts = m.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))  # parent packages run first
    return {m: len(arch.MODULES[m].read_text().splitlines()) for m in sorted(seen)}


def test_closure_is_small():
    c = closure()
    assert len(c) <= MAX_MODULES and sum(c.values()) <= MAX_LINES, (len(c), sum(c.values()))


def test_closure_has_no_catalog():
    c = closure()
    assert not [m for m in c if m.startswith(("certdp.mechanisms", "certdp.analyses", "certdp.audit"))]
    # the checker's own table is in it, and so are the grammar and the evaluator
    assert {"certdp.certificates.mechs", "certdp.expr.spec_grammar", "certdp.expr.evaluate"} <= set(c)


def test_every_kind_module_is_measured():
    # the checker loads its kind modules by name (importlib): each must be a root of the closure
    from certdp.certificates.checker import KIND_MODULES

    assert set(KIND_MODULES) <= set(arch.CHECKER_MODULES)


def test_closure_counts_function_local_imports():
    # check_iv imports check_dp inside a function: it must be in check_iv's closure
    assert "certdp.certificates.check_dp" in closure(("certdp.certificates.check_iv",))


if __name__ == "__main__":
    c = closure()
    for m, n in c.items():
        print(f"{n:6d}  {m}")
    print(f"{len(c)} modules, {sum(c.values())} lines")
