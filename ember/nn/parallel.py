"""torch.nn.parallel.DataParallel as it behaves in a torch with no GPU: it keeps the module
(under the name `module`, so its state_dict keys gain a "module." prefix), finds no devices
(device_ids is []) and calls the module directly."""
from .modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Splits each batch over GPUs in torch; with none, forward is module(*inputs, **kwargs).
    device_ids, output_device and dim are accepted and, as in a CPU-only torch, unused."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []            # (no accelerator: torch records none and returns here)

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)

    def replicate(self, module, device_ids):
        """One copy of module per device; a module with tensors cannot be copied to the CPU."""
        if not device_ids:
            return []
        if any(True for _ in module.parameters()) or any(True for _ in module.buffers()):
            raise AssertionError("Broadcast function not implemented for CPU tensors")
        return [module for _ in device_ids]

    def scatter(self, inputs, kwargs, device_ids):
        return self.dim                 # (never set without a GPU: torch's AttributeError)

    def gather(self, outputs, output_device):
        return self.dim

    def parallel_apply(self, replicas, inputs, kwargs):
        if len(replicas) != len(inputs):
            raise AssertionError(f"The number of modules {len(replicas)} is not equal to the "
                                 f"number of inputs {len(inputs)}")
        devices = self.device_ids[:len(replicas)]
        if len(replicas) != len(devices):
            raise AssertionError(f"The number of modules {len(replicas)} is not equal to the "
                                 f"number of devices {len(devices)}")
        raise AssertionError("No available accelerator found.")
