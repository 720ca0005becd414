"""nn.Module, Parameter, Buffer and the containers against torch.nn: registration, traversal,
state_dict / load_state_dict, train/eval, conversion, hooks, reprs and errors."""
import copy
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
from oracle import check_error


def both(fn):
    """fn(lib) for torch and ember."""
    return fn(torch), fn(ember)


def same_repr(fn):
    t, e = both(fn)
    assert repr(t) == repr(e), f"torch:\n{t!r}\nember:\n{e!r}"
    return t, e


def copy_weights(tmod, emod):
    """Load torch's state_dict (values) into the ember module."""
    emod.load_state_dict({k: ember.tensor(v.detach().numpy().copy())
                          for k, v in tmod.state_dict().items()})


def net(lib):
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 3)
            self.act = nn.Identity()
            self.seq = nn.Sequential(nn.Linear(3, 2), nn.Flatten(), nn.Linear(2, 2, bias=False))
            self.register_buffer("running", lib.zeros(2))
            self.register_buffer("scratch", lib.ones(1), persistent=False)

        def forward(self, x):
            return self.seq(self.act(self.fc1(x))) + self.running
    return Net()


def test_repr_nested():
    same_repr(net)
    same_repr(lambda L: L.nn.Sequential())
    same_repr(lambda L: L.nn.Sequential(OrderedDict(a=L.nn.Identity(), b=L.nn.Linear(1, 2))))


def test_parameters_state_dict_order_and_forward():
    tm, em = both(net)
    assert [n for n, _ in tm.named_parameters()] == [n for n, _ in em.named_parameters()]
    assert [n for n, _ in tm.named_buffers()] == [n for n, _ in em.named_buffers()]
    assert list(tm.state_dict()) == list(em.state_dict())
    assert tm.state_dict()._metadata == em.state_dict()._metadata
    copy_weights(tm, em)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    to, eo = tm(torch.tensor(x)), em(ember.tensor(x))
    np.testing.assert_allclose(eo._data, to.detach().numpy(), rtol=1e-6, atol=1e-6)
    assert type(to.grad_fn).__name__ == type(eo.grad_fn).__name__
    to.sum().backward()
    eo.sum().backward()
    for (n, tp), (_, ep) in zip(tm.named_parameters(), em.named_parameters()):
        np.testing.assert_allclose(ep.grad._data, tp.grad.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=n)
