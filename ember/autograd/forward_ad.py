"""torch.autograd.forward_ad: dual levels, make_dual, unpack_dual (Note [Forward AD] in
forward.py holds the machinery; this is its front end)."""
from typing import NamedTuple

from ..ops._views import make_view
from ..ops.shape import view
from ..tensor import Tensor, wrap
from .forward import LEVELS, _OPEN, open_level, close_level, tangent, set_tangent, hidden
from .grad_mode import STATE
from .graph import Node, link

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

_PUBLIC = []        # ids of the levels opened by this API (torch allows one at a time)


def _current():
    return len(_PUBLIC) - 1


def __getattr__(name):
    if name == "_current_level":        # torch's module attribute: -1 with no level open
        return _current()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class UnpackedDualTensor(NamedTuple):
    primal: Tensor
    tangent: Tensor


def enter_dual_level():
    if _PUBLIC:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _PUBLIC.append(open_level())
    return _current()


def exit_dual_level(*, level=None):
    if level is None:
        level = _current()
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != _current():
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    close_level(_PUBLIC.pop())


def _level_id(level, what):
    if level is None:
        level = _current()
        if level < 0:
            return None
    if not 0 <= level < len(_PUBLIC):
        raise RuntimeError(f"Invalid level given to {what}")
    return _PUBLIC[level]


def make_dual(tensor, tangent, *, level=None):
    if level is None and not _PUBLIC:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    if not (isinstance(tensor, Tensor) and tensor._data.dtype.kind in "fc"):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype if isinstance(tensor, Tensor) else type(tensor)}")
    if not (isinstance(tangent, Tensor) and tangent._data.dtype.kind in "fc"):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype if isinstance(tangent, Tensor) else type(tangent)}")
    return make_dual_at(tensor, tangent, _level_id(level, "_make_dual"))


def make_dual_at(tensor, tan, lv):
    """A view of tensor carrying tangent tan at level lv (and tensor's tangents of the levels
    outside lv)."""
    if tan._data.shape != tensor._data.shape:
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than "
                           f"that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor._data.shape)} while the given forward gradient is "
                           f"of size {list(tan._data.shape)}.")
    if tangent(tensor, lv) is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {_OPEN.index(lv)} is not supported.")
    with hidden(lv):
        d = view(tensor, tensor._data.shape)
    set_tangent(d, lv, tan)
    return d


class Identity(Node):
    """The history of unpack_dual's primal: an alias of the dual tensor."""
    __slots__ = ()

    def apply(self, grad):
        return grad,

    def jvp(self, ts, xs, out):
        return ts[0].view_as(ts[0])


def unpack_dual(tensor, *, level=None):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    if level is None and not _PUBLIC:
        return UnpackedDualTensor(tensor, None)
    lv = _PUBLIC[level] if level is not None and 0 <= level < len(_PUBLIC) else \
        _level_id(None, "") if level is None else None
    if lv is None:
        return UnpackedDualTensor(tensor, None)
    return unpack_at(tensor, lv)


def unpack_at(tensor, lv):
    """(an alias of tensor without its tangent at level lv, that tangent)."""
    tan = tangent(tensor, lv)
    if tan is None:
        return UnpackedDualTensor(tensor, None)
    with hidden(lv):
        primal = make_view(wrap(tensor._data), tensor)
        if STATE.enabled and tensor._requires_grad or LEVELS:
            link(primal, Identity(), tensor)
    return UnpackedDualTensor(primal, tan)


class dual_level:
    """Context manager: a dual level for the duration of the block."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False
