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
with the DP-SGD one-step in mpmath intervals (check_pld_iv) 41 modules, 8,007 lines;
on main before issue 36's first step 42 modules, 8,787 lines; with the table's slopes
in balls (verify.slopes, so that second-order cells need no sympy) 43 modules,
9,010 lines.  Of these, what a certificate with no user expression can load
(:func:`sympy_free_closure`: module-level imports only; sympy, the safe parser, the
expression evaluator, check_optimum and the mpmath kernel load in functions, for the
certificates that need them) is 29 modules, 5,808 lines.  With the checker in its own
package certdp.verifier (whose __init__ imports nothing) 43 modules, 9,023 lines; without
sympy 29 modules, 5,822 lines (47 lines later, on main: 43 modules, 9,047 lines; 29, 5,835).
Issue 36, second step: the checker's own Gaussian primitives (verifier.gauss, a copy of what
it used of numerics.normal/gdp/cells) and lazy ``certdp.numerics`` / ``certdp.Enclosure``
take numerics.gdp and numerics.cells out of the closure and numerics.enclosure/normal/gdp
out of what catalog certificates load; it gained the sympy-free switch-point proof for
sgd/icea GDP certificates (verifier.switch), the mpmath kernel's fixed-point Φ
(verifier.phi_fixed) and accountant value claims: 44 modules, 9,390 lines; with the
switch-point proof in mpmath intervals (verifier.switch_iv) 45 modules, 9,551 lines; with
the refined sgd/icea profile and δ_μ from the fixed-point Φ in the mpmath kernel 45 modules,
9,680 lines; with gdp_except in intervals (verifier.check_fdp_iv) 46 modules, 9,833 lines;
without sympy 27 modules, 5,191 lines.  The 3,000-line target is not met: the expression machinery for
``profile("...")`` specs (certdp.expr: parser, evaluator, extended intervals, validation,
about 2,600 lines with the enclosures and Φ it uses) is the largest part. With the shuffled-batches lower bound (check_shuffle, kind
not_dp_shuffled: Φ cells, fmpz_poly composition from below, 177 lines, sympy-free) merged
beside it: see the caps below. With check_pld's packed composition and shared per-end Φ
balls (issue 37 item 5: the same integers, 1.3–1.8× faster re-derivations) about 60 lines more.
The mpmath kernel's own closed forms and slopes (verifier.mechs_iv, so that catalog
certificates under ``--kernel mpmath`` load no sympy either): 47 -> 48 modules, 10,078 ->
10,415 lines (+1 module, +337 lines, all of it mpmath-kernel code loaded in functions;
the sympy-free closure is unchanged at 28 modules, 5,429 lines); with Φ by its series in
fixed point for those closed forms (verifier.phi_series) 49 modules, 10,516 lines (+1, +101);
with every evidence kind in the mpmath kernel (verifier.check_profile_pld_iv: pld_profile,
pld_items; check_law_pld_iv: pld_law, pld_law_lower; check_shuffle_iv: not_dp_shuffled;
check_optimum_iv: noise refinements; discrete_gaussian in mechs_iv) 53 modules, 11,409 lines
(+4, +893, all mpmath-kernel modules, loaded in functions: the flint kernel and the sympy-free
closure, 28 modules and 5,429 lines, load none of them).

Issue 36, third step (merged after the mpmath kernel's modules): the checker became self-contained (it imports only its own package;
errors, progress, the ball helpers, exact numbers, decide, the mpmath interval kernel and the
spec grammar moved into certdp/verifier/, their old names are one-line aliases of the same
module objects, and numerics re-exports the checker's Gaussian primitives instead of keeping
copies); what one certificate's check loads became a kind's own modules only (the GDP cell
argument in check_gdp, the cell tests in verifier.cells, the PLD composition in pld_compose,
the PLD re-derivations and the switch point loaded by evidence): 54 modules, 10,120 lines
(the aliases and the splits add modules, not code); without sympy 24 modules, 3,958 lines; with
fixed_point_units refusing mass balls too wide for a probability (a FLINT abort before) 10,137
and 3,975.  With ``import certdp`` loading neither the errors alias nor the package metadata
(``certdp.__version__`` on first use): 59 modules, 11,456 lines; without sympy 22 modules, 3,951.
What one check loads (``tests/certificates/test_checker_no_sympy.py``): 2,117–3,154 lines (7,208
before for a DP-SGD certificate).  Noise refinements checked without sympy (the checker's own
formula grammar, certdp.verifier.formula, 379 lines, and sign calculus,
certdp.verifier.formula_monotone, 247 lines; certdp.expr.monotone leaves the closure; the sympy
route stays, loaded in functions, for formulas outside the grammar): 59 -> 60 modules,
11,456 -> 12,148 lines (+692); the sympy-free closure (module-level imports) is unchanged at
22 modules, 3,951 lines, as check_optimum loads in functions.

Issue 36, mpmath kernel within 10x of flint and every check under 3,000 lines (h-mpk2): the
library's search loops (adaptive, refine, bisect) left verifier.decide for the real module
certdp.numerics.decide, the loss-law grid helpers left verifier.ball for check_law_pld and
ball_max for the PLD accountant: without sympy 22 modules, 3,763 lines (3,951 before); every
check loads 2,030–2,966 lines.  The whole closure grew by 68 lines to 59 modules, 11,524
lines: the mpmath kernel's Φ on mpmath's raw directed-rounding tuples with the far tail by
Laplace's continued fraction for Mills' ratio (verifier.phi_series), its erfc from that Φ
(verifier.iv, 58 lines fewer), the per-precision constants of the cell proofs and the DP-SGD
grid placement on raw interval tuples (check_pld_iv, 19 % faster).  Both merged: 60 modules,
12,217 lines; without sympy 22 modules, 3,763.  With the refinement's monotonicity proved in
Coq (h-mono, +17) and the one-step cut shared by the answer and the checker (h-trunc), the
naive profiles' balls moved from verifier.mechs to verifier.switch (their one user) and the
unused sympy δ̂ dropped: 60 modules, 12,288 lines; without sympy 22 modules, 3,792.

Issue 40, the Coq kernel proves a noise refinement's monotonicity (h-mono):
certdp.verifier.formula_monotone gains node_info / reciprocal (+17 lines), through which
certdp.verifier.coq.mono (outside the closure: loaded by the Coq kernel in functions) replays the
sign calculus's derivation in Coq: 60 modules, 12,234 lines; MAX_LINES 12,220 -> 12,237 (+17).
"""

from __future__ import annotations

import ast
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import test_architecture as arch  # noqa: E402

#: Upper limits: raise them only with a reason in the commit message.
MAX_MODULES = 60
MAX_LINES = 12_290


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


#: Upper limits of the part loaded for a certificate with no user expression (issue 36).
MAX_SYMPY_FREE_LINES = 3_795


def _outside_functions(tree: ast.AST) -> ast.Module:
    """The statements of ``tree`` that run on import: every function body (methods too) removed."""

    class Strip(ast.NodeTransformer):
        def visit_FunctionDef(self, node: ast.AST) -> None:
            return None

        visit_AsyncFunctionDef = visit_FunctionDef

    return Strip().visit(tree)


def sympy_free_closure() -> dict[str, int]:
    """What ``certdp verify`` can load for a catalog certificate: the closure of the checker
    and its kind modules through module-level imports only (the function-local ones —
    sympy, the safe parser, the expression evaluator, check_optimum, the mpmath kernel —
    load only for certificates that need them), plus parent packages."""
    from certdp.verifier.checker import KIND_MODULES

    seen: set[str] = set()
    todo = ["certdp.verifier.checker", *KIND_MODULES]
    while todo:
        m = todo.pop()
        if m in seen or m not in arch.MODULES:
            continue
        seen.add(m)
        todo.extend(arch._imports(m, tree=_outside_functions(ast.parse(arch.MODULES[m].read_text()))))
        parts = m.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))
    return {m: len(arch.MODULES[m].read_text().splitlines()) for m in sorted(seen)}


def test_catalog_certificates_load_no_sympy():
    c = sympy_free_closure()
    assert sum(c.values()) <= MAX_SYMPY_FREE_LINES, (len(c), sum(c.values()))
    for m in c:
        tree = _outside_functions(ast.parse(arch.MODULES[m].read_text()))
        top = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
        names = {a.name for n in top if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in top if isinstance(n, ast.ImportFrom) and n.module}
        assert not any(n == "sympy" or n.startswith("sympy.") for n in names), m
    assert not {"certdp.expr.parser", "certdp.expr.evaluate", "certdp.expr.derivative",
                "certdp.verifier.check_optimum", "certdp.verifier.check_iv"} & set(c)


def test_closure_is_small():
    c = closure()
    assert len(c) <= MAX_MODULES and sum(c.values()) <= MAX_LINES, (len(c), sum(c.values()))


def test_closure_has_no_catalog():
    c = closure()
    assert not [m for m in c if m.startswith(("certdp.mechanisms", "certdp.analyses", "certdp.audit"))]
    # the checker's own table is in it, and so are the grammar and the evaluator
    assert {"certdp.verifier.mechs", "certdp.verifier.spec_grammar", "certdp.expr.evaluate"} <= set(c)


def test_every_kind_module_is_measured():
    # the checker loads its kind modules by name (importlib): each must be a root of the closure
    from certdp.verifier.checker import KIND_MODULES

    assert set(KIND_MODULES) <= set(arch.CHECKER_MODULES)


def test_every_kind_has_its_module():
    # the checker imports only the module of the certificate's kind (KIND_HOME): the table
    # must name, for every kind a kind module declares, that module and no other
    import importlib

    from certdp.verifier.checker import KIND_HOME, KIND_MODULES

    declared = {k: name for name in KIND_MODULES for k in importlib.import_module(name).KINDS}
    assert KIND_HOME == declared


def test_closure_counts_function_local_imports():
    # check_iv imports check_dp inside a function: it must be in check_iv's closure
    assert "certdp.verifier.check_dp" in closure(("certdp.verifier.check_iv",))


if __name__ == "__main__":
    c = closure()
    for m, n in c.items():
        print(f"{n:6d}  {m}")
    print(f"{len(c)} modules, {sum(c.values())} lines")
    f = sympy_free_closure()
    print(f"without sympy (catalog certificates): {len(f)} modules, {sum(f.values())} lines")
