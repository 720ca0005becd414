"""The seed tutorials: every cell of the demo (our transcription of the seeds' examples) runs
through torch and ember in-process and prints the same text; and the shared seed checker,
when the project's shared/ folder is beside the checkout, reports every seed passing."""
import contextlib
import io
import os
import re
import subprocess
import sys

import pytest
import torch

import ember

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import autograd_tutorial  # noqa: E402

ADDR = re.compile(r"0x[0-9a-fA-F]+")
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
RANDOM_CELLS = {"requires_grad_()", "The graph is defined by running"}


def run_cells(lib):
    saved = sys.modules.get("torch")
    sys.modules["torch"] = lib
    lib.manual_seed(0)
    env, outs = {}, []
    try:
        for title, code in autograd_tutorial.CELLS:
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                try:
                    autograd_tutorial.run_cell(code, env)
                except Exception as e:  # noqa: BLE001
                    print(f"{type(e).__name__}: {e}")
            outs.append((title, ADDR.sub("0x?", buf.getvalue())))
    finally:
        sys.modules["torch"] = saved
    return outs


@pytest.fixture(scope="module")
def both():
    return run_cells(torch), run_cells(ember)


@pytest.mark.parametrize("cell", range(len(autograd_tutorial.CELLS)))
def test_seed_cell_prints_what_torch_prints(both, cell):
    (title, want), (_, got) = both[0][cell], both[1][cell]
    if any(title.startswith(k) for k in RANDOM_CELLS):
        # randn draws differ between the libraries: compare the printed structure
        want, got = NUMBER.sub("#", want), NUMBER.sub("#", got)
        want, got = re.sub(r"\s+", "", want), re.sub(r"\s+", "", got)
    assert got == want


SEEDCHECK = os.path.join(ROOT, "..", "shared", "tools", "seedcheck")


@pytest.mark.skipif(not os.path.exists(SEEDCHECK),
                    reason="the shared seed checker is not beside this checkout")
def test_shared_seedcheck_reports_every_seed_passing():
    out = subprocess.run([sys.executable, SEEDCHECK], capture_output=True, text=True,
                         cwd=ROOT, timeout=600, env=dict(os.environ, PYTHON=sys.executable))
    assert out.returncode == 0, out.stdout[-3000:]
    assert re.search(r"^5 passed, 0 failed$", out.stdout, re.M), out.stdout[-3000:]
