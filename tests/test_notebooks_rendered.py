"""The rendered copies docs/notebooks/NN_name.md are current (issue 18).

Checked without executing anything: each copy's header carries the sha256 of
its notebook's cells (docs/gen_notebooks.py ``source_hash``), every markdown and
code cell appears verbatim in the copy, and every figure it links exists.
Regenerate with ``python docs/gen_notebooks.py``.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
RENDERED = ROOT / "docs" / "notebooks"


def _gen():
    spec = importlib.util.spec_from_file_location("gen_notebooks", ROOT / "docs" / "gen_notebooks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gen = _gen()
HINT = "run python docs/gen_notebooks.py"


def test_every_notebook_is_rendered_and_nothing_else():
    assert NOTEBOOKS, "no notebooks found"
    assert {p.stem for p in RENDERED.glob("*.md")} == {p.stem for p in NOTEBOOKS}, HINT


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_rendered_copy_is_current(path: pathlib.Path):
    md = RENDERED / f"{path.stem}.md"
    assert md.exists(), f"{md} missing: {HINT}"
    text = md.read_text(encoding="utf-8")
    assert text.splitlines()[0] == gen.header(path), f"{md.name} is out of date: {HINT}"
    for kind, source in gen.cells_of(path):
        assert source.rstrip("\n") in text, f"{md.name}: a {kind} cell of {path.name} is missing: {HINT}"
    assert "```text" in text, f"{md.name} shows no outputs: {HINT}"
    for rel in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
        assert (RENDERED / rel).is_file(), f"{md.name} links a missing figure {rel}: {HINT}"


def test_hash_sees_every_edit(tmp_path: pathlib.Path):
    """The header check fails when any cell changes (so a stale copy cannot pass)."""
    src = NOTEBOOKS[0].read_text(encoding="utf-8")
    edited = tmp_path / NOTEBOOKS[0].name
    edited.write_text(src.replace("certdp", "certdp ", 1), encoding="utf-8")
    assert gen.source_hash(edited) != gen.source_hash(NOTEBOOKS[0])
