"""A small pytree: flatten nested tuples/lists/dicts (and namedtuples) to their leaves and
rebuild the same structure (torch.utils._pytree's role for ember.func)."""


def flatten(tree):
    """(leaves, spec): spec rebuilds the structure from a list of leaves (unflatten)."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):           # a namedtuple
        return ("nt", type(tree), [_flatten(v, leaves) for v in tree])
    if isinstance(tree, (tuple, list)):
        return (type(tree), None, [_flatten(v, leaves) for v in tree])
    if isinstance(tree, dict):
        keys = list(tree)
        return (dict, keys, [_flatten(tree[k], leaves) for k in keys])
    leaves.append(tree)
    return None


def unflatten(leaves, spec):
    it = iter(leaves)
    return _build(spec, it)


def _build(spec, it):
    if spec is None:
        return next(it)
    kind, extra, children = spec
    vals = [_build(c, it) for c in children]
    if kind == "nt":                    # torch.return_types take one sequence, namedtuples *args
        return extra(vals) if hasattr(extra, "n_fields") else extra(*vals)
    if kind is dict:
        return dict(zip(extra, vals))
    return kind(vals)


def count(spec):
    """The number of leaves a spec holds."""
    if spec is None:
        return 1
    return sum(count(c) for c in spec[2])
