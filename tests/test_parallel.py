"""nn.DataParallel and nn.SyncBatchNorm as a torch with no GPU and no process group runs them
(ember/nn/parallel.py, ember/nn/modules/batchnorm.py), against torch."""
import numpy as np
import pytest
import torch

import ember


def _pair(seed=0):
    tm = torch.nn.Linear(3, 2)
    em = ember.nn.Linear(3, 2)
    em.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, em


def test_data_parallel_wraps_the_module():
    tm, em = _pair()
    td, ed = torch.nn.DataParallel(tm), ember.nn.DataParallel(em)
    assert ed.module is em and td.module is tm
    assert repr(ed) == repr(td)
    assert list(ed.state_dict()) == list(td.state_dict()) == ["module.weight", "module.bias"]
    assert [n for n, _ in ed.named_parameters()] == [n for n, _ in td.named_parameters()]
    assert ed.device_ids == td.device_ids == []
    assert ember.nn.DataParallel(em, device_ids=[0, 1], output_device=0, dim=1).device_ids == []
    a = np.random.RandomState(0).randn(4, 3).astype(np.float32)
    xt, xe = torch.tensor(a), ember.tensor(a)
    rt, re_ = td(xt), ed(xe)
    # (float32 matmul: the summation order may differ in the last place, as for nn.Linear)
    np.testing.assert_allclose(re_.detach().numpy(), rt.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert re_.grad_fn.name() == rt.grad_fn.name()
    rt.sum().backward()
    re_.sum().backward()
    np.testing.assert_allclose(em.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-5,
                               atol=1e-6)
    ed.eval()
    assert not em.training
    # a wrapped model's state_dict loads into another wrapped model
    _, em2 = _pair()
    ember.nn.DataParallel(em2).load_state_dict(ed.state_dict())
    assert ember.equal(em2.weight, em.weight)


def test_data_parallel_forward_arguments_and_errors():
    for m in (torch, ember):
        d = m.nn.DataParallel(m.nn.Identity())
        assert str(d) == "DataParallel(\n  (module): Identity()\n)"
        with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
            d(m.ones(1), 3)
        with pytest.raises(TypeError, match="got an unexpected keyword argument 'y'"):
            d(m.ones(1), y=2)
        assert m.nn.DataParallel(3).module == 3
        with pytest.raises(TypeError, match="'int' object is not callable"):
            m.nn.DataParallel(3)(m.ones(1))
        dp = m.nn.DataParallel(m.nn.Linear(2, 2))
        with pytest.raises(AttributeError, match="'DataParallel' object has no attribute 'dim'"):
            dp.scatter((m.ones(1),), {}, [0])
        with pytest.raises(AttributeError, match="'DataParallel' object has no attribute 'dim'"):
            dp.gather([m.ones(1)], 0)
        with pytest.raises(AssertionError, match="Broadcast function not implemented for CPU "
                                                 "tensors"):
            dp.replicate(m.nn.Linear(2, 2), [0])
        assert dp.replicate(m.nn.Linear(2, 2), []) == []
        with pytest.raises(AssertionError, match="The number of modules 1 is not equal to the "
                                                 "number of devices 0"):
            dp.parallel_apply([dp.module], [(m.ones(2),)], [{}])
        with pytest.raises(AssertionError, match="The number of modules 0 is not equal to the "
                                                 "number of inputs 1"):
            dp.parallel_apply([], [(1,)], [])
        with pytest.raises(AssertionError, match="No available accelerator found."):
            dp.parallel_apply([], [], [])


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 2, 2), (2, 3, 1, 2, 2)])
@pytest.mark.parametrize("momentum", [0.1, None])
def test_sync_batch_norm_trains_and_evaluates_as_batch_norm(shape, momentum):
    a = np.random.RandomState(1).randn(*shape)
    res = []
    for m in (torch, ember):
        s = m.nn.SyncBatchNorm(3, momentum=momentum, dtype=m.float64)
        x = m.tensor(a, requires_grad=True)
        y = s(x)
        y.pow(2).sum().backward()
        y2 = s(x.detach() * 2)
        s.eval()
        z = s(x.detach()).detach()
        res.append((y.detach().numpy(), x.grad.numpy(), s.weight.grad.numpy(),
                    s.running_mean.numpy(), s.running_var.numpy(),
                    int(s.num_batches_tracked), z.numpy(), y2.detach().numpy(),
                    y.grad_fn.name()))
    for t, e in zip(*res):
        if isinstance(t, np.ndarray):
            np.testing.assert_allclose(e, t, rtol=1e-12, atol=1e-12)
        else:
            assert e == t


def test_sync_batch_norm_repr_state_and_errors():
    for m in (torch, ember):
        s = m.nn.SyncBatchNorm(3)
        assert repr(s) == ("SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                           "track_running_stats=True)")
        assert list(s.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                        "num_batches_tracked"]
        assert s.process_group is None
        assert isinstance(s, m.nn.modules.batchnorm._BatchNorm)
        with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
            s(m.ones(3))
        assert s.eval()(m.ones(4, 3)).shape == (4, 3)
        assert m.nn.SyncBatchNorm(3, track_running_stats=False).eval()(
            m.ones(4, 3)).shape == (4, 3)
        assert repr(m.nn.SyncBatchNorm(3, affine=False, process_group=5)) == (
            "SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
            "track_running_stats=True)")


def test_convert_sync_batchnorm():
    for m in (torch, ember):
        nn = m.nn
        net = nn.Sequential(nn.Conv2d(3, 3, 1), nn.BatchNorm2d(3),
                            nn.Sequential(nn.BatchNorm1d(3, eps=1e-3, momentum=0.2)))
        bn = net[1]
        bn.running_mean += 1
        net[2][0].eval()
        c = nn.SyncBatchNorm.convert_sync_batchnorm(net, process_group=7)
        assert c is net
        assert type(c[1]).__name__ == "SyncBatchNorm" and type(c[0]).__name__ == "Conv2d"
        assert c[1].weight is bn.weight and c[1].running_mean is bn.running_mean
        assert c[1].num_batches_tracked is bn.num_batches_tracked
        assert c[1].process_group == 7 and c[1].training
        assert repr(c[2][0]) == ("SyncBatchNorm(3, eps=0.001, momentum=0.2, affine=True, "
                                 "bias=True, track_running_stats=True)")
        assert not c[2][0].training
        lone = nn.BatchNorm2d(3, affine=False, track_running_stats=False)
        r = nn.SyncBatchNorm.convert_sync_batchnorm(lone)
        assert r is not lone and repr(r) == (
            "SyncBatchNorm(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
            "track_running_stats=False)")
        assert r.running_mean is None
        keep = nn.LayerNorm(3)
        assert nn.SyncBatchNorm.convert_sync_batchnorm(keep) is keep
