"""The training demo (examples/train_digits.py) on a shortened schedule, with ember and with real
torch: both train, their test accuracies agree within one point, each writes its PNG of the curves
and its checkpoints, the checkpoint reloads to the same accuracy, and each library reads the
other's checkpoint."""
import os
import re
import subprocess
import sys

import matplotlib.image
import numpy as np
import torch

import ember

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "examples", "train_digits.py")
EPOCHS = 2


def run_both(tmp_path):
    """Runs the demo with ember and with torch at once; returns {lib: (stdout, stderr, dir)}."""
    procs = {}
    for lib in ("ember", "torch"):
        out = tmp_path / lib
        cmd = [sys.executable, DEMO, "--epochs", str(EPOCHS), "--out", str(out)]
        procs[lib] = (subprocess.Popen(cmd + (["--torch"] if lib == "torch" else []),
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, cwd=ROOT), out)
    results = {}
    for lib, (p, out) in procs.items():
        stdout, stderr = p.communicate(timeout=300)
        assert p.returncode == 0, f"{lib}:\n{stdout}\n{stderr}"
        assert "Traceback" not in stdout + stderr
        results[lib] = (stdout, stderr, out)
    return results


def accuracy(stdout, model):
    m = re.search(rf"^{model}: final test accuracy ([\d.]+)%$", stdout, re.M)
    assert m, stdout
    return float(m.group(1))


def test_demo_ember_and_torch_agree(tmp_path):
    results = run_both(tmp_path)
    for lib, (stdout, stderr, out) in results.items():
        assert stdout.startswith(f"{lib}: 1438 training and 359 test images"), stdout
        for model in ("cnn", "mlp"):
            acc = accuracy(stdout, model)
            assert acc > 80.0, (lib, model, acc)            # it learned, even in 2 epochs
            line = re.search(rf"^{model}: checkpoint .* reloaded: test accuracy ([\d.]+)% "
                             rf"\(the same\)$", stdout, re.M)
            assert line and float(line.group(1)) == acc, stdout
        # tqdm's bar (on stderr) ends each epoch with the running loss and accuracy
        for model in ("cnn", "mlp"):
            for epoch in range(1, EPOCHS + 1):
                assert re.search(rf"{model} epoch  {epoch}/{EPOCHS}: 100%.* 45/45 .*"
                                 r"acc=0\.\d{3}, loss=\d\.\d{4}\]", stderr), (lib, stderr)
        png = out / "train_digits.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        img = matplotlib.image.imread(str(png))
        assert img.shape[0] >= 300 and img.shape[1] >= 800 and img[..., :3].std() > 0.05
    for model in ("cnn", "mlp"):
        e, t = accuracy(results["ember"][0], model), accuracy(results["torch"][0], model)
        assert abs(e - t) <= 1.0, (model, e, t)
    # the checkpoints are torch's format both ways: each library reads the other's file
    e_ckpt = ember.load(str(results["torch"][2] / "train_digits_cnn.pt"), weights_only=True)
    t_ckpt = torch.load(str(results["ember"][2] / "train_digits_cnn.pt"), weights_only=True)
    assert e_ckpt["epochs"] == t_ckpt["epochs"] == EPOCHS
    assert list(e_ckpt["model"]) == list(t_ckpt["model"])
    assert e_ckpt["optimizer"]["param_groups"][0]["lr"] == t_ckpt["optimizer"]["param_groups"][0]["lr"]
    for k, v in e_ckpt["model"].items():
        assert tuple(v.shape) == tuple(t_ckpt["model"][k].shape)
        np.testing.assert_allclose(v.numpy(), t_ckpt["model"][k].numpy(), atol=1e-3)

