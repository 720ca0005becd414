"""nn.AdaptiveLogSoftmaxWithLoss: Grave et al.'s adaptive softmax. The `cutoffs` split the
classes into a shortlist, predicted by the head directly, and clusters, each predicted by the
head as one token and then within the cluster by its own two-layer tail (input projected to
in_features // div_value^(i+1), then to the cluster's size): log p(c) = log p_head(cluster) +
log p_tail(c | cluster)."""
from collections import namedtuple

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        tails = []
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            tails.append(Sequential(Linear(in_features, hsz, bias=False, **kw),
                                    Linear(hsz, osz, bias=False, **kw)))
        self.tail = ModuleList(tails)

    def reset_parameters(self):
        self.head.reset_parameters()
        for seq in self.tail:
            for layer in seq:
                layer.reset_parameters()

    def forward(self, input, target):
        tdim = target.dim()
        if tdim == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input.size()}")
        elif tdim == 0:
            if input.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = tdim > 0
        x = input if batched else input.unsqueeze(0)
        t = target if batched else target.unsqueeze(0)
        n = t.size(0)
        # which head column each row reads: its class in the shortlist, else its cluster's token
        column = t.clone()
        within = x.new_zeros(n)             # log p_tail(c | cluster); 0 for the shortlist
        covered = (t >= 0) & (t < self.shortlist_size)
        for i in range(self.n_clusters):
            low, high = self.cutoffs[i], self.cutoffs[i + 1]
            mask = (t >= low) & (t < high)
            covered = covered | mask
            rows = mask.nonzero().flatten()
            if rows.numel() == 0:
                continue
            column = column.masked_fill(mask, self.shortlist_size + i)
            logp = F.log_softmax(self.tail[i](x.index_select(0, rows)), dim=1)
            picked = logp.gather(1, (t.index_select(0, rows) - low).unsqueeze(1)).squeeze(1)
            within = within.index_add(0, rows, picked)
        if not bool(covered.all()):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{t.min().item()}, {t.max().item()}] were "
                               f"found. ")
        head = F.log_softmax(self.head(x), dim=1)
        output = within + head.gather(1, column.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _full_log_prob(self, input, head_output):
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i in range(self.n_clusters):
            start, stop = self.cutoffs[i], self.cutoffs[i + 1]
            logp = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = logp + head_logprob[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input):
        """Log-probabilities of every class: (batch, n_classes)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each input: (batch,)."""
        return self._full_log_prob(input, self.head(input)).argmax(dim=1)
