"""Issue 11's "done when": a seeded training script (manual_seed(0), an MLP with default init
and dropout, a shuffled DataLoader, Adam, 200 steps, the loss printed every 20) prints the
same text under ember and under torch."""
import contextlib
import io
import os
import runpy

import torch

import ember

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "examples", "seeded_training.py")


def run(use_torch, monkeypatch):
    """The script's output, run in this process (torch is imported already); the global
    generators' states are restored afterwards."""
    monkeypatch.setenv("EMBER_USE_TORCH", "1" if use_torch else "0")
    buf = io.StringIO()
    with torch.random.fork_rng(), ember.random.fork_rng(), contextlib.redirect_stdout(buf):
        runpy.run_path(SCRIPT, run_name="__main__")
    return buf.getvalue()


def test_seeded_training_prints_torchs_text(monkeypatch):
    ember_out, torch_out = run(False, monkeypatch), run(True, monkeypatch)
    lines = torch_out.splitlines()
    assert [ln.split()[1] for ln in lines[:10]] == [str(s) for s in range(20, 201, 20)]
    assert len({ln.split()[-1] for ln in lines[:10]}) > 5      # the losses do change
    assert ember_out == torch_out
