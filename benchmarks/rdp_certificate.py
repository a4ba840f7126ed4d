"""Issue 37 items 4 and 5, measured in fresh processes (cold caches), interleaved.

Item 4 — RDP, first call in a fresh process: certdp's ``api.rdp_epsilon`` on
``subsample(gaussian(sigma=S), rate=Q)`` × T at δ 1e-5 against dp_accounting's
``RdpAccountant`` (``PoissonSampledDpEvent(Q, GaussianDpEvent(S))`` × T, ``get_epsilon``).
Each run is one child process per tool; the child times its imports and then the
first call (CPU ``process_time`` and wall ``perf_counter``).

Item 5 — certificates: in one child, ``dpsgd(σ, q, T, delta=1e-5)`` (the answer), then
``writer.dpsgd_certificate`` + ``write`` (the certificate, re-checked by the checker),
both with cold caches; the ratio is (answer + certificate) / answer.  Then the written
certificate is checked from scratch (the checker's caches cleared) with the flint kernel
(``certdp.verifier.checker.verify``); that ratio is check / answer.

Every certdp source tree given (``--root``, repeatable; default: this checkout) is run
in the same interleaved rounds, so a "before" tree (e.g. ``git archive <commit> | tar -x
-C /tmp/before``) and the current one see the same machine load.  Children get
bytecode caching in a temporary directory (``PYTHONPYCACHEPREFIX``; the project's shell
sets ``PYTHONDONTWRITEBYTECODE=1``, which would add source compilation to every cold
start); one warm-up child per tool and tree is not counted.  Medians over ``--repeat``
rounds are reported.

Run: python benchmarks/rdp_certificate.py [--repeat 7] [--root PATH ...] [--rdp-grid [--grid-steps 10000]]
     [--rdp-cells "σ,q,T;..."]
     [--skip-rdp] [--skip-cert] [--cert-cells "σ,q,T;..."]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

RDP_CERTDP = r"""
import json, sys, time
c0, w0 = time.process_time(), time.perf_counter()
from certdp.api import rdp_epsilon
c1, w1 = time.process_time(), time.perf_counter()
s, q, T = sys.argv[1:4]
b = rdp_epsilon(f"subsample(gaussian(sigma={s}), rate={q})", "1e-5", count=int(T))
c2, w2 = time.process_time(), time.perf_counter()
print(json.dumps({"import_cpu": c1 - c0, "import_wall": w1 - w0, "cpu": c2 - c1, "wall": w2 - w1,
                  "value": b.enclosure.hi_str(8), "order": str(b.order)}))
"""

RDP_DPA = r"""
import json, sys, time
c0, w0 = time.process_time(), time.perf_counter()
from dp_accounting import dp_event
from dp_accounting.rdp import rdp_privacy_accountant
c1, w1 = time.process_time(), time.perf_counter()
s, q, T = float(sys.argv[1]), float(eval(sys.argv[2])), int(sys.argv[3])
acc = rdp_privacy_accountant.RdpAccountant()
acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(s)), T)
e = acc.get_epsilon(1e-5)
c2, w2 = time.process_time(), time.perf_counter()
print(json.dumps({"import_cpu": c1 - c0, "import_wall": w1 - w0, "cpu": c2 - c1, "wall": w2 - w1,
                  "value": f"{e:.8g}"}))
"""

CERT = r"""
import json, os, sys, tempfile, time
from certdp.analyses.accountants.dpsgd import dpsgd
from certdp.certificates.writer import dpsgd_certificate, write
import certdp.verifier.checker
s, q, T = sys.argv[1:4]
c0, w0 = time.process_time(), time.perf_counter()
res = dpsgd(s, q, int(T), delta="1e-5")
c1, w1 = time.process_time(), time.perf_counter()
doc = dpsgd_certificate(res)
with tempfile.TemporaryDirectory() as d:
    write(doc, os.path.join(d, "c.json"))
    c2, w2 = time.process_time(), time.perf_counter()
    for mod in list(sys.modules.values()):  # the check from scratch: the checker's caches cleared
        for f in vars(mod).values() if (getattr(mod, "__name__", "") or "").startswith("certdp.verifier") else ():
            if hasattr(f, "cache_clear"):
                f.cache_clear()
    c3, w3 = time.process_time(), time.perf_counter()
    verdict = certdp.verifier.checker.verify(os.path.join(d, "c.json"))
    c4, w4 = time.process_time(), time.perf_counter()
print(json.dumps({"cpu": c1 - c0, "wall": w1 - w0, "cert_cpu": c2 - c1, "cert_wall": w2 - w1,
                  "check_cpu": c4 - c3, "check_wall": w4 - w3, "valid": verdict.valid,
                  "value": str(res.eps), "claim": doc["claim"]["eps"]}))
"""


def child(code: str, args: list[str], root: str | None, cache: str) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache
    if root is not None:
        env["PYTHONPATH"] = root
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=True,
                         cwd=cache)  # not the checkout: "-c" puts the working directory on sys.path
    return json.loads(out.stdout.strip().splitlines()[-1])


def _s(seconds: float) -> str:
    """Seconds with 3 decimals, or 5 below 10 ms (the full-batch RDP cells take ~1 ms)."""
    return f"{seconds:.5f}" if seconds < 0.01 else f"{seconds:.3f}"


def med(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def rdp_cells(grid: bool, steps: str, cells: str | None = None) -> list[tuple[str, str, str]]:
    if cells:
        return [tuple(c.split(",")) for c in cells.split(";")]  # type: ignore[misc]
    if not grid:
        return [("4", "1/100", "10000")]
    return [(s, q, t) for t in steps.split(",") for q in ("1/10000", "1/1000", "1/100", "0.32768", "1")
            for s in ("0.3", "0.5", "0.8", "1.1", "2", "9.4", "20")]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--root", action="append", help="a certdp source tree (repeatable; default: this checkout)")
    ap.add_argument("--rdp-grid", action="store_true", help="every cell of issue 37's grid (one round each)")
    ap.add_argument("--grid-steps", default="100,10000,100000,1000000", help="the T values of --rdp-grid")
    ap.add_argument("--rdp-cells", default=None, help='RDP cells "σ,q,T;..." (--repeat rounds each)')
    ap.add_argument("--skip-rdp", action="store_true")
    ap.add_argument("--skip-cert", action="store_true")
    ap.add_argument("--cert-cells", default="2,0.01,100;1.1,0.01,1000;0.5,0.001,100")
    a = ap.parse_args()
    roots = a.root or [HERE]
    cache = tempfile.mkdtemp(prefix="certdp-bench-pyc-")
    if not a.skip_rdp:
        cells = rdp_cells(a.rdp_grid, a.grid_steps, a.rdp_cells)
        repeat = 1 if a.rdp_grid else a.repeat
        print("## item 4: RDP, first call in a fresh process (medians; ratio = certdp / dp_accounting)\n")
        print("| σ | q | T | tree | certdp ε (order) | dp_accounting ε | certdp call CPU / wall | dp_accounting call CPU / wall "
              "| ratio CPU | ratio wall | imports certdp / dp_accounting (wall) |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for cell in cells:
            for root in roots:
                child(RDP_CERTDP, list(cell), root, cache)
            child(RDP_DPA, list(cell), None, cache)
            runs: dict = {r: [] for r in roots}
            dpa = []
            for _ in range(repeat):
                for root in roots:
                    runs[root].append(child(RDP_CERTDP, list(cell), root, cache))
                dpa.append(child(RDP_DPA, list(cell), None, cache))
            for root in roots:
                c = runs[root]
                print(f"| {cell[0]} | {cell[1]} | {cell[2]} | {os.path.basename(root.rstrip('/'))} | {c[0]['value']} "
                      f"({c[0]['order']}) | {dpa[0]['value']} | {_s(med(c, 'cpu'))} / {_s(med(c, 'wall'))} s "
                      f"| {_s(med(dpa, 'cpu'))} / {_s(med(dpa, 'wall'))} s | {med(c, 'cpu') / med(dpa, 'cpu'):.2f}× "
                      f"| {med(c, 'wall') / med(dpa, 'wall'):.2f}× | {med(c, 'import_wall'):.2f} / "
                      f"{med(dpa, 'import_wall'):.2f} s |", flush=True)
    if not a.skip_cert:
        print("\n## item 5: certificate writing, fresh process (medians; ratio = (answer + certificate) / answer)\n")
        print("| σ | q | T | tree | answer | claim ε | answer CPU / wall | certificate CPU / wall | ratio CPU | ratio wall "
              "| check (flint) CPU / wall | check / answer CPU (wall) |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for text in a.cert_cells.split(";"):
            cell = text.split(",")
            for root in roots:
                child(CERT, cell, root, cache)
            runs = {r: [] for r in roots}
            for _ in range(a.repeat):
                for root in roots:
                    runs[root].append(child(CERT, cell, root, cache))
            for root in roots:
                c = runs[root]
                rc = statistics.median((r["cpu"] + r["cert_cpu"]) / r["cpu"] for r in c)
                rw = statistics.median((r["wall"] + r["cert_wall"]) / r["wall"] for r in c)
                print(f"| {cell[0]} | {cell[1]} | {cell[2]} | {os.path.basename(root.rstrip('/'))} | {c[0]['value']} "
                      f"| {c[0]['claim']} | {med(c, 'cpu'):.3f} / {med(c, 'wall'):.3f} s "
                      f"| {med(c, 'cert_cpu'):.3f} / {med(c, 'cert_wall'):.3f} s | {rc:.2f}× | {rw:.2f}× "
                      f"| {med(c, 'check_cpu'):.3f} / {med(c, 'check_wall'):.3f} s "
                      f"| {statistics.median(r['check_cpu'] / r['cpu'] for r in c):.2f}× "
                      f"({statistics.median(r['check_wall'] / r['wall'] for r in c):.2f}×) |", flush=True)


if __name__ == "__main__":
    main()
