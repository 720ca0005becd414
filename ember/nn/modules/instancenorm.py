"""InstanceNorm1d/2d/3d: per-sample, per-channel normalization (F.instance_norm), optional
affine parameters and running statistics; unbatched inputs are run as a batch of one."""
import warnings

from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _dims = ()          # the accepted input dims: (unbatched, batched)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device,
                         dtype, bias)

    def _check_input_dim(self, input):
        if input.dim() not in self._dims:
            raise ValueError(f"expected {self._dims[0]}D or {self._dims[1]}D input (got "
                             f"{input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        no_batch = self._dims[0]
        feature_dim = input.dim() - no_batch
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match "
                                 f"num_features ({self.num_features}), but got: "
                                 f"{input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You "
                          "can silence this warning by not passing in num_features, which is "
                          "not used because affine=False", stacklevel=2)
        if input.dim() == no_batch:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight,
                               self.bias, self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Over (C, L) or (N, C, L) inputs."""
    _dims = (2, 3)


class InstanceNorm2d(_InstanceNorm):
    """Over (C, H, W) or (N, C, H, W) inputs."""
    _dims = (3, 4)


class InstanceNorm3d(_InstanceNorm):
    """Over (C, D, H, W) or (N, C, D, H, W) inputs."""
    _dims = (4, 5)


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm1d with num_features read from the first input (affine and running
    statistics on by default); becomes an InstanceNorm1d."""
    cls_to_become = InstanceNorm1d
    _dims = (2, 3)


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm2d with num_features read from the first input; becomes an
    InstanceNorm2d."""
    cls_to_become = InstanceNorm2d
    _dims = (3, 4)


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """InstanceNorm3d with num_features read from the first input; becomes an
    InstanceNorm3d."""
    cls_to_become = InstanceNorm3d
    _dims = (4, 5)
