"""LazyModuleMixin: a module whose parameters are UninitializedParameter until its first call,
whose input decides their shapes (initialize_parameters); then it becomes cls_to_become."""
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixed in before the module class: registers the forward pre-hook that infers the
    parameters and the load_state_dict pre-hook that materializes them from a checkpoint."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self.register_load_state_dict_pre_hook(_lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters,
                                                               with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # uninitialized entries are saved as themselves (they cannot be detached)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars or is_lazy(param) else \
                    param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars or is_lazy(buf) else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                        unexpected_keys, error_msgs):
        # an uninitialized entry takes the shape of an initialized one from the checkpoint
        for name, param in list(self._parameters.items()) + list(self._buffers.items()):
            key = prefix + name
            if param is not None and key in state_dict and is_lazy(param):
                value = state_dict[key]
                if not is_lazy(value):
                    param.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether any parameter or buffer of this module (not its children) is still
        uninitialized."""
        return any(is_lazy(t) for t in list(self._parameters.values()) +
                   list(self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        """Infer the parameters from the first call's arguments, then become
        cls_to_become."""
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")


def _lazy_load_hook(module, *args):
    # (module-level functions, not bound methods or lambdas: a lazy module pickles)
    module._lazy_load_hook(*args)


def _infer_parameters(module, args, kwargs):
    module._infer_parameters(module, args, kwargs)
