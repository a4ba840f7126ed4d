"""Write docs/api.md from the docstrings of the public API (certdp.api).

Run ``python docs/gen_api.py`` after changing the API; tests/test_api.py
fails while docs/api.md is out of date."""

from __future__ import annotations

import inspect
import pathlib
import sys


def render() -> str:
    import certdp
    from certdp import api

    out = ["# certdp API", "",
           "Generated from the docstrings by `python docs/gen_api.py`; do not edit by hand.", "",
           inspect.getdoc(api) or "", "",
           "```python", "import certdp", "certdp.delta(\"gaussian(sigma=2)\", 1).enclosure   # δ(1) ∈ [...]", "```", ""]
    for name in certdp.API:
        fn = getattr(api, name)
        out += [f"## `certdp.{name}{inspect.signature(fn)}`", "", inspect.getdoc(fn) or "", ""]
    out += ["## `certdp.Enclosure`", "", inspect.getdoc(certdp.Enclosure) or "", "",
            "Methods: " + ", ".join(f"`{m}`" for m in sorted(
                n for n, v in vars(certdp.Enclosure).items() if not n.startswith("_") and callable(v)
                or isinstance(v, (property, classmethod)))), ""]
    return "\n".join(out)


if __name__ == "__main__":
    target = pathlib.Path(__file__).resolve().parent / "api.md"
    target.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {target}\n")
