"""The shape of the code: imports run one way, every torch node name has one class, Tensor's
op methods are bound in one table (issue 8). These read ember's source; they compare nothing
with torch."""
import ast
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import torch

import ember
from ember.autograd.graph import Node

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "ember")


def _modules():
    out = {}
    for d, _, files in os.walk(PKG):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(d, f)
                name = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
                out[name[:-len(".__init__")] if name.endswith(".__init__") else name] = path
    return out


MODULES = _modules()


def _imports(name, path):
    """The ember modules that importing `name` runs first: its module-level imports, and
    each package of an imported module (a package's own modules do not count their package:
    Python runs its __init__ before them)."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    found = set()
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        stack.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, ast.stmt))
        if isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[:len(parts) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in MODULES else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    out = set()
    for target in found:
        if not target.startswith("ember"):
            continue
        parts = target.split(".")
        out.update(".".join(parts[:k]) for k in range(2, len(parts) + 1))
    own = name.split(".")
    out -= {".".join(own[:k]) for k in range(1, len(own) + 1)}
    return {m for m in out if m in MODULES}


def test_imports_form_no_cycle():
    graph = {name: _imports(name, path) for name, path in MODULES.items()}
    state = {}

    def visit(node, trail):
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycle = trail[trail.index(nxt):] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


def test_core_layers_import_nothing_above_them():
    """dtypes -> tensor -> autograd core -> ops: a lower layer never imports a higher one."""
    graph = {name: _imports(name, path) for name, path in MODULES.items()}
    assert graph["ember.dtypes"] == set()
    assert graph["ember.tensor"] <= {"ember.dtypes", "ember.printing"}
    for name in ("ember.autograd", "ember.autograd.graph", "ember.autograd.engine",
                 "ember.autograd.grad_mode", "ember.autograd.function"):
        assert not {m for m in graph[name] if m.startswith(("ember.ops", "ember.nn",
                                                            "ember.creation"))}, name


def test_every_module_imports_alone():
    def run(name):
        r = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=ROOT,
                           capture_output=True, text=True)
        return name, r.returncode, r.stderr[-500:]

    with ThreadPoolExecutor(2) as pool:
        bad = [(n, err) for n, rc, err in pool.map(run, sorted(MODULES)) if rc]
    assert not bad, bad


def test_function_local_imports_say_why():
    """An import inside a function is the exception: its line (or the one above) says why."""
    bare = []
    for name, path in MODULES.items():
        src = open(path, encoding="utf-8").read()
        lines = src.split("\n")
        tree = ast.parse(src)
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                here = lines[node.lineno - 1]
                k = node.lineno - 2         # (a comment above a group of imports covers it)
                while k > 0 and lines[k].strip().startswith(("import ", "from ")):
                    k -= 1
                if "#" not in here and not lines[k].strip().startswith("#"):
                    bare.append(f"{name}:{node.lineno}: {here.strip()}")
    assert not bare, bare


def _node_classes():
    out, stack = [], [Node]
    while stack:
        for sub in stack.pop().__subclasses__():
            stack.append(sub)
            out.append(sub)
    return out


def test_every_node_name_has_one_class():
    seen = {}
    for cls in _node_classes():
        seen.setdefault(cls.__name__, set()).add(f"{cls.__module__}.{cls.__qualname__}")
    twice = {k: sorted(v) for k, v in seen.items() if len(v) > 1}
    assert not twice, twice


def test_no_class_is_made_at_run_time():
    """Node classes are plain `class` statements, found by grep (no type(name, bases, ns))."""
    made = []
    for name, path in MODULES.items():
        tree = ast.parse(open(path, encoding="utf-8").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "type" and \
                    len(node.args) == 3:
                made.append(f"{name}:{node.lineno}")
    # torch.return_types' named tuples are data; a custom Function's node class (torch's
    # <Name>Backward) is made when the user defines the Function; a node whose saved tensors
    # saved_tensors_hooks packed gets a same-named subclass that unpacks on read (graph.py,
    # _reads_packed: made once per node class, only when hooks are used)
    allowed = {"ember.return_types", "ember.autograd.function", "ember.autograd.graph"}
    assert {m.split(":")[0] for m in made} <= allowed, made


def test_tensor_operators_are_bound_in_the_table():
    """Every op method and operator of Tensor is assigned in ember/tensor_methods.py, to a
    function of the family module it names."""
    src = open(os.path.join(PKG, "tensor_methods.py"), encoding="utf-8").read()
    tree = ast.parse(src)
    bound = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and getattr(t.value, "id", None) == "T":
                    bound.add(t.attr)
    for name in ("__add__", "__mul__", "__matmul__", "__getitem__", "__setitem__", "sum",
                 "exp", "view", "backward", "copy_", "fill_", "zero_", "detach"):
        assert name in bound, name
    own = set(vars(ember.Tensor)) - bound
    # what the class itself defines: state, properties and conversions, not ops
    assert {"requires_grad", "grad", "shape", "item", "numpy", "__repr__"} <= own
    assert not own & {"add", "mul", "sum", "exp", "matmul"}


def test_can_cast_and_result_type():
    for L in (torch, ember):
        assert L.can_cast(L.float32, L.int32) is False
        assert L.can_cast(L.int32, L.float32) is True
    assert str(ember.result_type(ember.tensor([1]), 1.0)) == \
        str(torch.result_type(torch.tensor([1]), 1.0))


def test_numpy_runtime_warnings_from_ember_are_silent_and_the_users_still_show():
    """torch prints nothing for exp(1000) or 0/0; ember's filter is scoped to its own modules
    (run in a fresh interpreter, with -W always: pytest resets warning filters around each
    test)."""
    code = ("import numpy as np, ember\n"
            "ember.exp(ember.tensor([1000.0])); ember.tensor([0.0]) / 0.0\n"
            "ember.tensor([1.0, 2.0]).sum().log_() ; ember.log(ember.tensor([-1.0]))\n"
            "print('ember done', flush=True)\n"
            "np.exp(np.array([1000.0]))\n")
    r = subprocess.run([sys.executable, "-W", "always", "-c", code], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ember done\n"
    lines = [ln for ln in r.stderr.splitlines() if "RuntimeWarning" in ln]
    assert len(lines) == 1 and "overflow encountered in exp" in lines[0], r.stderr


def test_subpackages_load_on_first_use():
    """Note [Lazy subpackages]: `import ember` leaves nn, optim, utils, func, special, fft,
    testing and serialization unloaded; every usual way of reaching them still works."""
    code = ("import sys, ember\n"
            "lazy = ['nn', 'optim', 'utils', 'func', 'special', 'fft', 'testing', 'serialization']\n"
            "print(sorted(m for m in lazy if 'ember.' + m in sys.modules))\n"
            "from ember import nn\n"
            "import ember.optim\n"
            "print(type(ember.nn.Linear(2, 2)).__name__, ember.optim.SGD.__name__, "
            "ember.fft.fft.__name__, ember.save.__name__, 'utils' in dir(ember))\n"
            "print(hasattr(ember, 'no_such_name'))\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["[]", "Linear SGD fft save True", "False"]


def test_install_as_torch():
    """`ember.install_as_torch()` makes a program's own `import torch...` statements find
    ember, the lazily loaded subpackages included; it refuses when the real torch is loaded."""
    def run(code):
        r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                           text=True, check=False)
        assert r.returncode == 0, r.stderr
        return r

    code = ("import sys, ember\n"
            "assert ember.install_as_torch() is ember and ember.install_as_torch() is ember\n"
            "import torch\n"
            "import torch.nn as nn\n"
            "import torch.nn.functional as F\n"
            "from torch.utils.data import DataLoader, TensorDataset\n"
            "from torch.nn.modules.linear import Linear\n"
            "import torch.optim as optim, torch.autograd.forward_ad as fwAD\n"
            "print(torch is ember, nn is ember.nn, F is ember.nn.functional, Linear is nn.Linear,"
            " optim is ember.optim, fwAD is ember.autograd.forward_ad,"
            " DataLoader.__module__, sys.modules['torch.utils.data'] is ember.utils.data)\n"
            "loader = DataLoader(TensorDataset(torch.arange(4.)), batch_size=2)\n"
            "print([b[0].tolist() for b in loader], F.relu(torch.tensor([-1., 2.])).tolist())\n"
            "print(any('site-packages/torch' in str(getattr(m, '__file__', ''))"
            " for m in list(sys.modules.values())))\n"
            "try:\n"
            "    import torch.no_such_module\n"
            "except ModuleNotFoundError as e:\n"
            "    print(type(e).__name__, e.name, e)\n")
    r = run(code)
    assert r.stdout.splitlines() == [
        "True True True True True True ember.utils.data.dataloader True",
        "[[0.0, 1.0], [2.0, 3.0]] [0.0, 2.0]", "False",
        "ModuleNotFoundError torch.no_such_module No module named 'torch.no_such_module'"]
    code = ("import torch, ember\n"
            "try:\n"
            "    ember.install_as_torch()\n"
            "except RuntimeError as e:\n"
            "    print('refused', 'real torch is already imported' in str(e))\n"
            "import sys; print(sys.modules['torch'] is torch, 'ember' in torch.__file__)\n")
    r = run(code)
    assert r.stdout.splitlines() == ["refused True", "True False"]
