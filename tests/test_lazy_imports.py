"""Note [Lazy layer ops] and [Lazy subpackages] (ember/__init__.py): `import ember` leaves the
layer-op modules unloaded (W8's import RSS), and their names still behave as plain attributes."""
import subprocess
import sys

import torch

import ember

LAZY_MODULES = ("ember.ops.conv", "ember.ops.rnn", "ember.ops.grid", "ember.ops.layer_forms",
                "ember.ops.pool", "ember.ops.loss", "ember.ops.ldl", "ember.nn", "ember.optim")


def test_import_ember_loads_none_of_the_lazy_modules():
    code = ("import sys, ember; print(sorted(m for m in sys.modules if m in %r))"
            % (LAZY_MODULES,))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_each_lazy_list_is_its_modules_names():
    import importlib
    for mod, names in ember._LAZY_OPS.items():
        m = importlib.import_module("ember.ops." + mod)
        if mod == "grid":        # F.affine_grid and F.grid_sample are nn.functional's, not torch.*'s
            assert set(names) == set(m.__all__) - {"affine_grid", "grid_sample"}
        else:
            assert set(names) == set(m.__all__), mod
    assert len(ember._LAZY_OP_NAMES) == sum(len(v) for v in ember._LAZY_OPS.values())


def test_lazy_names_are_torchs_and_resolve_to_the_modules_functions():
    import importlib
    for name, mod in sorted(ember._LAZY_OP_NAMES.items()):
        assert hasattr(torch, name), name
        assert getattr(ember, name) is getattr(importlib.import_module("ember.ops." + mod), name)
        assert name in dir(ember)


def test_lazy_names_work_in_a_fresh_process_by_every_access_form():
    code = ("import ember\n"
            "from ember import conv2d, dropout\n"
            "import ember.linalg as L\n"
            "from ember.linalg import ldl_factor\n"
            "x = ember.ones(1, 1, 3, 3)\n"
            "print(ember.conv2d is conv2d, conv2d(x, ember.ones(1, 1, 2, 2)).sum().item(),\n"
            "      dropout(x, 0.5, False).sum().item(), 'ldl_factor' in dir(L),\n"
            "      L.ldl_factor is ldl_factor, ember.lstm.__name__,\n"
            "      ember.nn.functional.interpolate(x, size=(1, 1), mode='area').item())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["True", "16.0", "9.0", "True", "True", "lstm", "1.0"]


def test_unknown_names_still_raise_attribute_error():
    for mod, name in ((ember, "conv4d"), (ember.linalg, "ldl_factorise")):
        try:
            getattr(mod, name)
        except AttributeError as e:
            assert name in str(e)
        else:
            raise AssertionError(name)
