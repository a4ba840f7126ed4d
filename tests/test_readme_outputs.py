"""Every output line the README shows under a `$ certdp ...` command in its console
blocks is a line that command really prints (issue 38 item 6: the README once showed
the Laplace's μ under `certdp measure "compose(gaussian(sigma=5), k=100)"`)."""

from __future__ import annotations

import pathlib
import re
import shlex

import pytest

from certdp.cli import main

README = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def shown_outputs(text: str) -> list[tuple[str, list[str]]]:
    """(command line, the output lines shown under it) for each command with output."""
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        lines = block.splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ certdp "):
                i += 1
                continue
            cmd = lines[i]
            while cmd.rstrip().endswith("\\") and i + 1 < len(lines):  # a continued command line
                i += 1
                cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
            out = []
            while i + 1 < len(lines) and not lines[i + 1].startswith("$ "):
                i += 1
                if lines[i].strip():
                    out.append(lines[i].rstrip())
            if out:
                found.append((cmd, out))
            i += 1
    return found


CASES = shown_outputs(README)


def test_the_readme_shows_outputs():
    assert len(CASES) >= 6  # profile, identify, the three measures, account


@pytest.mark.parametrize("cmd, shown", CASES, ids=[c[:60] for c, _ in CASES])
def test_shown_output_is_real(cmd, shown, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # --certificate lap.json lands here
    argv = shlex.split(cmd[2:], comments=True)[1:]
    assert main([*argv, "--quiet"]) in (0, 1)
    printed = [ln.rstrip() for ln in capsys.readouterr().out.splitlines()]
    for line in shown:
        assert line in printed, f"README shows {line!r} under {cmd!r}; the command prints:\n" + "\n".join(printed)


def test_from_python_block_runs_and_its_comments_hold():
    """The README's "From Python" block runs; a comment that shows a value ('...' or True)
    is what the line evaluates to."""
    block = README.split("**From Python**", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    env: dict = {}
    checked = 0
    for line in block.splitlines():
        code, _, comment = line.partition("  # ")
        code, comment = code.strip(), comment.strip()
        if code.startswith("import"):
            exec(code, env)  # noqa: S102 - the README's own code
            continue
        value = eval(code, env)  # noqa: S307
        if comment.startswith("'"):
            assert value == comment.split("'")[1], line
            checked += 1
        elif comment.split()[:1] == ["True"]:
            assert value is True, line
            checked += 1
    assert checked >= 2
