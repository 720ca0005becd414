"""ember's demo: the autograd tutorial of the seeds, cell by cell, as a notebook shows it.

Run: python examples/autograd_tutorial.py   (every cell is plain PyTorch code run by ember)."""
import ast
import sys

import ember

CELLS = [
    ("Create a tensor and track computation with requires_grad=True",
     "import torch\nx = torch.ones(2, 2, requires_grad=True)\nprint(x)\nprint(x.grad_fn)"),
    ("An operation on it records a node", "y = x + 2\nprint(y)\nprint(y.grad_fn)"),
    ("Leaves are created by the user", "print(x.is_leaf, y.is_leaf)"),
    ("More operations", "z = y * y * 3\nout = z.mean()\nprint(z, out)"),
    ("requires_grad_() changes the flag in place",
     "a = torch.randn(2, 2)\na = ((a * 3) / (a - 1))\nprint(a.requires_grad)\n"
     "a.requires_grad_(True)\nprint(a.requires_grad)\nb = (a * a).sum()\nprint(b.grad_fn)"),
    ("Backpropagate: out is a scalar, so backward() needs no argument",
     "out.backward()\nprint(x.grad)"),
    ("Gradients accumulate; zero them between passes",
     "out2 = x.sum()\nout2.backward()\nprint(x.grad)\n\nout3 = x.sum()\n"
     "x.grad.data.zero_()\nout3.backward()\nprint(x.grad)"),
    ("A non-scalar output needs a gradient argument (a vector-Jacobian product)",
     "x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)\ny = 2 * x\nz = y.view(2, 2)\n"
     "print(z)\nv = torch.tensor([[1.0, 0.1], [0.01, 0.001]], dtype=torch.float)\n"
     "z.backward(v)\nprint(x.grad)"),
    ("The graph is defined by running the code: a Python loop decides its depth",
     "x = torch.randn(3, requires_grad=True)\ny = x * 2\nwhile y.data.norm() < 1000:\n"
     "    y = y * 2\nprint(y)\nv = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)\n"
     "y.backward(v)\nprint(x.grad)"),
    ("Stop tracking with torch.no_grad()",
     "x = torch.tensor(1.0, requires_grad=True)\ny1 = x ** 2\nwith torch.no_grad():\n"
     "    y2 = x ** 3\ny3 = y1 + y2\nprint(x.requires_grad)\nprint(y1, y1.requires_grad)\n"
     "print(y2, y2.requires_grad)\nprint(y3, y3.requires_grad)\ny3.backward()\nprint(x.grad)"),
    ("Change values without autograd seeing it through .data",
     "x = torch.ones(1, requires_grad=True)\nprint(x.data)\nprint(x.data.requires_grad)\n"
     "y = 2 * x\nx.data *= 100\ny.backward()\nprint(x)\nprint(x.grad)"),
    ("detach() gives the same values with no history",
     "x = torch.ones(2, 2, requires_grad=True)\ny = x.detach()\nprint(y.requires_grad)\n"
     "print(x.eq(y).all())"),
    ("The norm of a matrix", "h = torch.tensor([[1, 2], [3, 4]], dtype=torch.float)\nh.norm()"),
    ("Errors are torch's",
     "b = torch.ones(4, 4, requires_grad=True)\nc = (b * b).mean()\n"
     "c.backward(4 * torch.ones(4, 4))"),
]


def run_cell(code, env):
    """Execute a cell; show its last bare expression like a notebook does."""
    tree = ast.parse(code)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    if last is not None:
        tree.body.pop()
    exec(compile(tree, "<cell>", "exec"), env)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), env)
        if value is not None:
            print(repr(value))


def main():
    sys.modules["torch"] = ember    # the cells say `import torch`; ember answers
    ember.manual_seed(0)
    env = {}
    for n, (title, code) in enumerate(CELLS, 1):
        print(f"# {title}")
        print("\n".join(f"In [{n}]: " + l if i == 0 else "   ...: " + l
                        for i, l in enumerate(code.split("\n"))))
        try:
            run_cell(code, env)
        except Exception as e:  # noqa: BLE001 - a notebook shows the error and goes on
            print(f"{type(e).__name__}: {e}")
        print()


if __name__ == "__main__":
    main()
