"""A seeded training run that prints the same text under ember and under torch.

    python examples/seeded_training.py            # ember (import ember as torch)
    EMBER_USE_TORCH=1 python examples/seeded_training.py   # real PyTorch

manual_seed(0), then a small MLP with default initialisation and dropout, trained with Adam
on a synthetic regression set through a shuffled DataLoader for 200 steps, printing the loss
every 20 steps. Every random number (data, init, dropout masks, shuffle order) comes from
the seeded generator, so ember prints torch's losses digit for digit."""
import os
import sys

if os.environ.get("EMBER_USE_TORCH") == "1":
    import torch
else:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import ember as torch
nn = torch.nn         # (not `from torch import nn`: that imports the module named torch)
DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset

torch.manual_seed(0)

# synthetic regression data: y = sin(x W) + noise
x = torch.randn(512, 8)
w_true = torch.randn(8, 1)
y = torch.sin(x @ w_true) + 0.1 * torch.randn(512, 1)
loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)

model = nn.Sequential(
    nn.Linear(8, 64), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(64, 64), nn.Tanh(), nn.Dropout(0.1),
    nn.Linear(64, 1),
)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()

step = 0
while step < 200:
    for xb, yb in loader:
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        step += 1
        if step % 20 == 0:
            print(f"step {step:3d}  loss {loss.item():.6f}")
        if step == 200:
            break

model.eval()
with torch.no_grad():
    print(f"final eval loss {loss_fn(model(x), y).item():.6f}")
print(model[0].weight[0, :4])
