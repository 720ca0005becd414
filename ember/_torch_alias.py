"""`ember.install_as_torch()`: make `import torch...` statements find ember.

`import ember as torch` binds one name; a later `import torch.nn as nn` or
`from torch.utils.data import DataLoader` still goes through the import system, which looks
for a package called `torch` and finds the real one (or none). install_as_torch puts ember in
`sys.modules['torch']`, every ember submodule already loaded under its `torch.` name, and a
finder at the front of `sys.meta_path` that answers any later `torch.<x>` import with the
module `ember.<x>` (importing it first: nn, optim, utils... load on first use, Note [Lazy
subpackages]). The modules are the same objects under both names, so `torch.nn is ember.nn`.
"""
import importlib
import importlib.abc
import importlib.util
import sys

__all__ = ["install_as_torch"]


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system a module that is already loaded (ember's), unchanged."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        pass


class _TorchToEmber(importlib.abc.MetaPathFinder):
    """Answers `torch.<x>` with `ember.<x>`; every other name is left to the other finders."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("torch."):
            return None
        target_name = "ember" + fullname[len("torch"):]
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name is not None and (target_name == e.name
                                       or target_name.startswith(e.name + ".")):
                # ember has no such module: `import torch.<x>` fails as it would for any
                # missing module (the real torch's file is never consulted)
                raise ModuleNotFoundError(f"No module named '{fullname}'",
                                          name=fullname) from None
            raise
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module),
                                               is_package=hasattr(module, "__path__"))


def install_as_torch():
    """Register ember as the module `torch` (and `ember.x` as `torch.x`) for this process.

    Opt-in, for programs whose own `import torch.nn as nn`-style statements should get
    ember. Raises RuntimeError if the real torch is already imported: the two cannot share
    the name. Calling it again is harmless.
    """
    ember = sys.modules["ember"]
    current = sys.modules.get("torch")
    if current is not None and current is not ember:
        raise RuntimeError(
            "ember.install_as_torch(): the real torch is already imported in this process "
            f"({getattr(current, '__file__', current)!r}); call install_as_torch() before "
            "anything imports torch, or run the program in a fresh process")
    if not any(isinstance(f, _TorchToEmber) for f in sys.meta_path):
        sys.meta_path.insert(0, _TorchToEmber())
    for name, module in list(sys.modules.items()):
        if module is not None and (name == "ember" or name.startswith("ember.")):
            sys.modules.setdefault("torch" + name[len("ember"):], module)
    return ember
