"""torch.nn: Module and layers (ember/nn/modules/), Parameter, functional, init."""
from .parameter import Parameter, Buffer, UninitializedParameter, UninitializedBuffer  # noqa: F401
from .modules import *  # noqa: F401,F403  (modules/__init__.py lists the layer classes)
from . import functional, init, modules, utils  # noqa: F401
from . import parallel  # noqa: F401
from .parallel import DataParallel  # noqa: F401
