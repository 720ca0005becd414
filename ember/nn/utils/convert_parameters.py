"""parameters_to_vector and vector_to_parameters."""
from ...ops.join import cat
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated (differentiable: CatBackward0 of views)."""
    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Each parameter's data becomes its slice of vec (sharing vec's memory)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
