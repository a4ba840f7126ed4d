"""Every input file a command reads — claims files, sweep grids, mechanism tables —
that is undecodable, absurdly nested, a directory or missing gives one line on
stderr and exit 2, never a traceback (issue 18; found by the file fuzz)."""

from __future__ import annotations

import pytest

from certdp.cli import main

READERS = [
    lambda f: ["audit", f],
    lambda f: ["sweep", f, "--out", f + ".jsonl"],
    lambda f: ["prdp", "check", "--eps", "1", "--delta", "0", f],
]

CONTENTS = {
    "not-utf8": b"\x80\xff[[claim]]",
    "deep-toml": ("a = " + "[" * 10_000 + "]" * 10_000 + "\n").encode(),
    "deep-json": ("[" * 100_000).encode(),
    "empty": b"",
}


@pytest.mark.parametrize("reader", range(len(READERS)))
@pytest.mark.parametrize("name", sorted(CONTENTS))
def test_bad_file_is_one_line_exit_2(reader, name, tmp_path, capsys):
    f = tmp_path / f"{name}.in"
    f.write_bytes(CONTENTS[name])
    rc = main(READERS[reader](str(f)))
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.startswith("certdp: error: ") and err.count("\n") == 1


@pytest.mark.parametrize("reader", range(len(READERS)))
def test_directory_and_missing_file(reader, tmp_path, capsys):
    for path in (str(tmp_path), str(tmp_path / "missing.toml")):
        assert main(READERS[reader](path)) == 2
        err = capsys.readouterr().err
        assert err.startswith("certdp: error: ") and err.count("\n") == 1
