"""The two checker kernels on every certificate kind the CLI writes: CPU time of
``certdp.verifier.checker.verify(path, kernel="flint")`` against ``kernel="mpmath"``
per certificate (issue 36: the mpmath kernel must cost at most 10x the flint one).

Certificates: the claims and CLI commands of ``tests/certificates/test_checker_no_sympy.py``
(one of each kind and evidence), the claims of ``tests/audit/data/every_kind.toml``, and
(unless ``--no-seeds``) every certificate of ``certdp audit --builtin seeds --certificates DIR``.

Timing: ``time.process_time`` (CPU seconds), one warm-up check per kernel and
certificate first (imports), then every timed check starts from cleared caches
(the checkers' module-level caches of PLDs and Φ tables); REPEAT rounds, flint and mpmath interleaved,
the minimum of each.  Prints a Markdown table (one row per certificate, sorted by ratio)
and the worst ratio; a certificate the two kernels disagree on is listed as DISAGREE.

Run:  python benchmarks/kernels.py [--dir DIR] [--reuse] [--no-seeds] [--repeat N] [--json OUT]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import pathlib
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _test_sources() -> tuple[str, dict[str, list[str]]]:
    sys.path.insert(0, str(ROOT / "tests" / "certificates"))
    import test_checker_no_sympy as t  # noqa: PLC0415

    return t.CLAIMS, t.COMMANDS


def write_certificates(out: pathlib.Path, seeds: bool) -> list[pathlib.Path]:
    """Write every certificate into ``out`` (quietly) and return their paths."""
    from certdp.cli import main  # noqa: PLC0415

    claims, commands = _test_sources()
    out.mkdir(parents=True, exist_ok=True)
    (out / "claims.toml").write_text(claims)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        main(["audit", str(out / "claims.toml"), "--certificates", str(out / "tests"), "--quiet"])
        main(["audit", str(ROOT / "tests" / "audit" / "data" / "every_kind.toml"), "--certificates",
              str(out / "every_kind"), "--quiet"])
        for name, argv in commands.items():
            (out / "cli").mkdir(exist_ok=True)
            main([*argv, "--certificate", str(out / "cli" / f"{name}.json"), "--quiet"])
        if seeds:
            main(["audit", "--builtin", "seeds", "--certificates", str(out / "seeds"), "--quiet"])
    return collect(out)


def collect(out: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for p in out.rglob("*.json"))


def describe(path: pathlib.Path) -> str:
    doc = json.loads(path.read_text())
    ev = doc.get("evidence") or {}
    q = doc["claim"].get("quantity")
    kind = doc["claim"]["kind"] + (f"[{q}]" if q else "")
    return f"{kind} / {','.join(sorted(ev)) or '-'}"


def clear_caches() -> None:
    """Forget what an earlier check left behind (the flint kernel caches composed PLDs per
    grid, the mpmath kernel its Φ tables per precision): every timed check starts cold."""
    import functools  # noqa: PLC0415

    for name, mod in list(sys.modules.items()):
        if not name.startswith("certdp.verifier") or mod is None:
            continue
        for attr, v in vars(mod).items():
            if isinstance(v, functools._lru_cache_wrapper):
                v.cache_clear()
            elif isinstance(v, dict) and attr.startswith("_") and attr.upper() == attr and attr != "__ALL__":
                v.clear()


def cpu(f) -> tuple[float, object]:
    clear_caches()
    t = time.process_time()
    out = f()
    return time.process_time() - t, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", help="where the certificates are (written unless --reuse)")
    ap.add_argument("--reuse", action="store_true", help="time the certificates already in --dir")
    ap.add_argument("--no-seeds", action="store_true", help="skip the seeds' audit")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--json", help="write the rows as JSON here")
    args = ap.parse_args(argv)
    from certdp.verifier.checker import verify  # noqa: PLC0415

    out = pathlib.Path(args.dir or tempfile.mkdtemp(prefix="kernels-"))
    paths = collect(out) if args.reuse else write_certificates(out, not args.no_seeds)
    rows = []
    for p in paths:
        if p.name == "claims.toml":
            continue
        try:
            verify(str(p), "flint")
            verify(str(p), "mpmath")  # warm-up: imports, tables
        except Exception as err:  # noqa: BLE001 - a benchmark reports, it does not stop
            rows.append({"path": str(p.relative_to(out)), "kind": describe(p), "error": f"{type(err).__name__}: {err}"})
            continue
        tf, tm = [], []
        for _ in range(args.repeat):
            t, rf = cpu(lambda: verify(str(p), "flint"))
            tf.append(t)
            t, rm = cpu(lambda: verify(str(p), "mpmath"))
            tm.append(t)
        rows.append({"path": str(p.relative_to(out)), "kind": describe(p), "flint": min(tf), "mpmath": min(tm),
                     "flint_valid": rf.valid, "mpmath_valid": rm.valid,
                     "mpmath_step": None if rm.valid else rm.failed_step})
    ok = [r for r in rows if "error" not in r]
    for r in ok:
        r["ratio"] = r["mpmath"] / max(r["flint"], 1e-4)  # below 0.1 ms process_time is noise
    ok.sort(key=lambda r: r["ratio"])
    print(f"{len(ok)} certificates in {out} (CPU seconds, min of {args.repeat}; ratio with flint floored at 0.1 ms)\n")
    print("| certificate | kind / evidence | flint | mpmath | mpmath / flint | verdicts |")
    print("|---|---|---|---|---|---|")
    for r in ok:
        agree = "agree" if r["flint_valid"] == r["mpmath_valid"] else "DISAGREE"
        verdict = f"{'VALID' if r['flint_valid'] else 'INVALID'} {agree}"
        if not r["mpmath_valid"]:
            verdict += f" (mpmath: {r['mpmath_step']})"
        print(f"| {r['path']} | {r['kind']} | {r['flint']:.4f} | {r['mpmath']:.4f} | {r['ratio']:.1f}x | {verdict} |")
    for r in rows:
        if "error" in r:
            print(f"| {r['path']} | {r['kind']} | error | {r['error']} | | |")
    if ok:
        worst = ok[-1]
        print(f"\nworst ratio: {worst['ratio']:.1f}x ({worst['path']}, {worst['kind']})")
        print(f"total: flint {sum(r['flint'] for r in ok):.2f} s, mpmath {sum(r['mpmath'] for r in ok):.2f} s")
        bad = [r["path"] for r in ok if r["flint_valid"] != r["mpmath_valid"] or not r["flint_valid"]]
        print(f"disagreements or INVALID under flint: {len(bad)} {bad}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
