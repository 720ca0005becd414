"""ember's training demo: a LeNet-style CNN and an MLP learn scikit-learn's 8x8 handwritten digits.

Run:  python examples/train_digits.py            (ember: `import ember as torch`)
      python examples/train_digits.py --torch    (the same program with real PyTorch)

Everything below the import is plain PyTorch code: a TensorDataset and DataLoader, nn.Sequential
models, Adam with a cosine learning-rate schedule, a tqdm bar per epoch showing the running loss
and accuracy, the test accuracy, a checkpoint (model and optimizer state dicts) saved with
torch.save and loaded back into fresh objects, and a PNG of the loss and accuracy curves.
The digits ship with scikit-learn (no download). Needs the `demo` extra: pip install -e '.[demo]'."""
import argparse
import os
import sys
import time

import numpy as np

ap = argparse.ArgumentParser(description="Train a CNN and an MLP on the 8x8 digits.")
ap.add_argument("--torch", action="store_true", help="run with real PyTorch instead of ember")
ap.add_argument("--epochs", type=int, default=12, help="epochs per model (default 12)")
ap.add_argument("--out", default=".", help="folder for the checkpoint and the PNG (default .)")
ap.add_argument("--seed", type=int, default=0)
args = ap.parse_args()

if args.torch:
    import torch
else:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import ember as torch

import matplotlib
matplotlib.use("Agg")                                   # headless: write the PNG, open no window
import matplotlib.pyplot as plt                         # noqa: E402
from sklearn.datasets import load_digits                # noqa: E402
from tqdm import tqdm                                   # noqa: E402

nn = torch.nn              # attribute access, not `from torch import nn`: that names the module
DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset

LIB = "torch" if args.torch else "ember"
torch.manual_seed(args.seed)
torch.set_num_threads(1)                                # tiny batches: threads cost more than they give

# 1797 images of 8x8 pixels valued 0..16; a fixed 80/20 split, the same for both libraries
digits = load_digits()
images = (digits.images / 16.0).astype(np.float32)[:, None]        # N x 1 x 8 x 8
labels = digits.target.astype(np.int64)
order = np.random.default_rng(args.seed).permutation(len(labels))
n_test = len(labels) // 5
test_idx, train_idx = order[:n_test], order[n_test:]
train_set = TensorDataset(torch.from_numpy(images[train_idx]), torch.from_numpy(labels[train_idx]))
x_test, y_test = torch.from_numpy(images[test_idx]), torch.from_numpy(labels[test_idx])


def lenet():
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),     # 16 x 4 x 4
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),    # 32 x 2 x 2
        nn.Flatten(), nn.Linear(32 * 2 * 2, 64), nn.ReLU(), nn.Linear(64, 10))


def mlp():
    return nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(), nn.Dropout(0.1),
                         nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))


def evaluate(model):
    model.eval()
    with torch.no_grad():
        logits = model(x_test)
        loss = nn.functional.cross_entropy(logits, y_test).item()
        acc = (logits.argmax(1) == y_test).float().mean().item()
    return loss, acc


def make_optimizer(model):
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    return opt, sched


def train(name, model):
    """Train for args.epochs; returns per-epoch curves (train/test loss and accuracy)."""
    opt, sched = make_optimizer(model)
    loss_fn = nn.CrossEntropyLoss()
    loader = DataLoader(train_set, batch_size=32, shuffle=True,
                        generator=torch.Generator().manual_seed(args.seed))
    curves = {k: [] for k in ("train_loss", "train_acc", "test_loss", "test_acc")}
    for epoch in range(1, args.epochs + 1):
        model.train()
        total_loss, correct, seen = 0.0, 0, 0
        bar = tqdm(loader, desc=f"{name} epoch {epoch:2d}/{args.epochs}", unit="batch",
                   leave=True, dynamic_ncols=False, ncols=100)
        for x, y in bar:
            opt.zero_grad()
            logits = model(x)
            loss = loss_fn(logits, y)
            loss.backward()
            opt.step()
            total_loss += loss.item() * len(y)
            correct += (logits.argmax(1) == y).sum().item()
            seen += len(y)
            bar.set_postfix(loss=f"{total_loss / seen:.4f}", acc=f"{correct / seen:.3f}")
        sched.step()
        test_loss, test_acc = evaluate(model)
        for k, v in zip(curves, (total_loss / seen, correct / seen, test_loss, test_acc)):
            curves[k].append(v)
    return curves, opt


def checkpoint_roundtrip(name, model, opt, factory, acc):
    """Save model and optimizer state dicts, load them into fresh objects, re-evaluate."""
    path = os.path.join(args.out, f"train_digits_{name}.pt")
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                "epochs": args.epochs}, path)
    state = torch.load(path, weights_only=True)
    fresh = factory()
    fresh.load_state_dict(state["model"])
    fresh_opt, _ = make_optimizer(fresh)
    fresh_opt.load_state_dict(state["optimizer"])
    _, acc2 = evaluate(fresh)
    same = "the same" if acc2 == acc else "DIFFERENT"
    print(f"{name}: checkpoint {path} ({os.path.getsize(path) / 1024:.0f} KiB) reloaded: "
          f"test accuracy {100 * acc2:.2f}% ({same})")
    return acc2


def plot(results, path):
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(11, 4.2))
    for (name, curves), color in zip(results.items(), ("tab:blue", "tab:orange")):
        epochs = range(1, len(curves["train_loss"]) + 1)
        ax_loss.plot(epochs, curves["train_loss"], color=color, label=f"{name} train")
        ax_loss.plot(epochs, curves["test_loss"], color=color, ls="--", label=f"{name} test")
        ax_acc.plot(epochs, [100 * a for a in curves["train_acc"]], color=color,
                    label=f"{name} train")
        ax_acc.plot(epochs, [100 * a for a in curves["test_acc"]], color=color, ls="--",
                    label=f"{name} test")
    ax_loss.set(title="cross-entropy loss", xlabel="epoch", yscale="log")
    ax_acc.set(title="accuracy (%, axis from 80)", xlabel="epoch", ylim=(80, 100.5))
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(f"8x8 digits ({len(train_idx)} train / {n_test} test), trained with {LIB}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


os.makedirs(args.out, exist_ok=True)
print(f"{LIB}: {len(train_idx)} training and {n_test} test images of 8x8 digits, "
      f"{args.epochs} epochs per model")
start = time.perf_counter()
results = {}
for name, factory in (("cnn", lenet), ("mlp", mlp)):
    model = factory()
    n_params = sum(p.numel() for p in model.parameters())
    print(f"{name}: {n_params:,} parameters")
    results[name], opt = train(name, model)
    acc = results[name]["test_acc"][-1]
    print(f"{name}: final test accuracy {100 * acc:.2f}%")
    checkpoint_roundtrip(name, model, opt, factory, acc)
png = os.path.join(args.out, "train_digits.png")
plot(results, png)
print(f"curves: {png}")
print(f"{LIB}: done in {time.perf_counter() - start:.1f} s")
