"""ember.optim: torch.optim's optimizers and learning-rate schedulers on NumPy arrays."""
from .optimizer import Optimizer
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from . import lr_scheduler

__all__ = ["Optimizer", "Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "ASGD",
           "LBFGS", "Muon", "NAdam", "RAdam", "RMSprop", "Rprop", "SGD", "lr_scheduler"]
