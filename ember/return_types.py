"""torch.return_types: the named tuples that ops with several results return (values/indices
of max, Q/R of qr, ...), printed as torch prints them. One table below lists them all."""
import sys as _sys


def structseq(name, fields):
    """A torch.return_types.<name>: a tuple with named fields that prints like torch's."""
    def __new__(cls, seq):
        seq = tuple(seq)
        if len(seq) != len(fields):
            raise TypeError(f"torch.return_types.{name} takes a {len(fields)}-sequence "
                            f"({len(seq)}-sequence given)")
        return tuple.__new__(cls, seq)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    def __reduce__(self):
        return (type(self), (tuple(self),))

    ns = {"__new__": __new__, "__repr__": __repr__, "__str__": __repr__, "__slots__": (),
          "__reduce__": __reduce__, "n_fields": len(fields), "n_sequence_fields": len(fields),
          "n_unnamed_fields": 0, "_fields": fields, "__module__": "ember.return_types",
          "__qualname__": name}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: tuple.__getitem__(self, i))
    return type(name, (tuple,), ns)


_VALUES_INDICES = ("values", "indices")

max = structseq("max", _VALUES_INDICES)
min = structseq("min", _VALUES_INDICES)
median = structseq("median", _VALUES_INDICES)
nanmedian = structseq("nanmedian", _VALUES_INDICES)
mode = structseq("mode", _VALUES_INDICES)
topk = structseq("topk", _VALUES_INDICES)
sort = structseq("sort", _VALUES_INDICES)
kthvalue = structseq("kthvalue", _VALUES_INDICES)
cummax = structseq("cummax", _VALUES_INDICES)
cummin = structseq("cummin", _VALUES_INDICES)
aminmax = structseq("aminmax", ("min", "max"))
linalg_slogdet = structseq("linalg_slogdet", ("sign", "logabsdet"))
slogdet = structseq("slogdet", ("sign", "logabsdet"))
linalg_qr = structseq("linalg_qr", ("Q", "R"))
qr = structseq("qr", ("Q", "R"))
linalg_eigh = structseq("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_eig = structseq("linalg_eig", ("eigenvalues", "eigenvectors"))
linalg_svd = structseq("linalg_svd", ("U", "S", "Vh"))
svd = structseq("svd", ("U", "S", "V"))
linalg_inv_ex = structseq("linalg_inv_ex", ("inverse", "info"))
linalg_solve_ex = structseq("linalg_solve_ex", ("result", "info"))
linalg_cholesky_ex = structseq("linalg_cholesky_ex", ("L", "info"))
linalg_lstsq = structseq("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
linalg_lu_factor = structseq("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = structseq("linalg_lu_factor_ex", ("LU", "pivots", "info"))
linalg_lu = structseq("linalg_lu", ("P", "L", "U"))
linalg_ldl_factor = structseq("linalg_ldl_factor", ("LD", "pivots"))
linalg_ldl_factor_ex = structseq("linalg_ldl_factor_ex", ("LD", "pivots", "info"))
lu_unpack = structseq("lu_unpack", ("P", "L", "U"))
_lu_with_info = structseq("_lu_with_info", ("LU", "pivots", "infos"))
triangular_solve = structseq("triangular_solve", ("solution", "cloned_coefficient"))

# ---- surface ops (issue 14)
frexp = structseq("frexp", ("mantissa", "exponent"))
histogram = structseq("histogram", ("hist", "bin_edges"))
histogramdd = structseq("histogramdd", ("hist", "bin_edges"))
geqrf = structseq("geqrf", ("a", "tau"))

# ---- the out= forms: torch returns return_types.<name>_out when the outs were given
for _name in ("max", "min", "median", "nanmedian", "mode", "topk", "sort", "kthvalue", "cummax",
              "cummin", "aminmax", "slogdet", "qr", "svd", "frexp", "geqrf", "histogram",
              "triangular_solve", "lu_unpack", "linalg_slogdet", "linalg_qr", "linalg_eigh",
              "linalg_eig", "linalg_svd", "linalg_inv_ex", "linalg_solve_ex", "linalg_cholesky_ex",
              "linalg_lstsq",
              "linalg_lu_factor", "linalg_lu_factor_ex", "linalg_lu", "linalg_ldl_factor",
              "linalg_ldl_factor_ex"):
    _base = globals()[_name]
    globals()[_name + "_out"] = structseq(_name + "_out", _base._fields)
del _name, _base
