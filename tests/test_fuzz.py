"""The differential fuzzer in the suite (tests/fuzz): random programs of 2-8 ops run line by
line through torch and ember, everything in scope compared after every line.

- the CI profile (always, strict): FUZZ_PROGRAMS programs from seeded random.Random, program
  ids FUZZ_SEED * 1_000_003 + 0, 1, ... (tests/fuzz/run.py's run_many), so that which programs
  run depends on tests/fuzz/gen.py alone. (It used hypothesis's derandomized draws before, and
  those change with the loaded modules: hypothesis mixes into its integer draws constants it
  reads from the source of every loaded non-test module, ember's included, so every edit to
  ember, and which test files ran first, changed the 300 programs drawn.) Each divergence is
  shrunk by line deletion (at most SHRINK_SECONDS each) and the test fails listing each
  minimal program as runnable code (it runs as printed, under torch or under ember).
- EMBER_FUZZ=long: 100,000 programs (EMBER_FUZZ_N overrides the count, EMBER_FUZZ_SEED the
  seed), which goes on past divergences and fails listing each one shrunk."""
import os
import subprocess
import sys

import pytest

from fuzz.run import run_many

FUZZ_PROGRAMS = 300
FUZZ_SEED = 0
SHRINK_SECONDS = 20.0


def _report(ran, found):
    return f"{len(found)} of {ran} programs diverged:\n\n" + "\n\n".join(
        f"# program {pid}\n{d.program()}" for pid, d in found)


def test_random_programs_behave_as_in_torch():
    ran, found, _ = run_many(FUZZ_PROGRAMS, seed=FUZZ_SEED, budget=SHRINK_SECONDS)
    if found:
        pytest.fail(_report(ran, found), pytrace=False)


_PROGRAM_TEXTS = """
import hashlib, sys
sys.path[:0] = [{tests!r}, {root!r}]
from fuzz.run import Divergence, RandomSource, TorchBug, run_generated
h = hashlib.sha256()
for pid in range({n}):
    try:
        lines = run_generated(RandomSource(pid))
    except (Divergence, TorchBug) as e:
        lines = getattr(e, "lines", [str(e)])
    h.update("\\n".join(lines).encode() + b"\\n\\n")
print(h.hexdigest())
"""


def test_the_ci_programs_do_not_depend_on_the_hash_seed():
    tests = os.path.dirname(os.path.abspath(__file__))
    code = _PROGRAM_TEXTS.format(tests=tests, root=os.path.dirname(tests), n=60)
    digests = set()
    for seed in ("0", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1


@pytest.mark.skipif(os.environ.get("EMBER_FUZZ") != "long",
                    reason="the long profile runs with EMBER_FUZZ=long")
def test_long_profile():
    n = int(os.environ.get("EMBER_FUZZ_N", "100000"))
    ran, found, _ = run_many(n, seed=int(os.environ.get("EMBER_FUZZ_SEED", "0")))
    assert not found, _report(ran, found)


def test_nan_signs_are_compared_except_after_the_ops_that_excuse_them():
    # run.py's NAN_SIGN_OPS: a line that moves values must keep NaN sign bits; a line calling
    # an op whose NaN signs follow each library's kernels gives ember's NaNs torch's signs, so
    # that a later signbit reads the same operand
    from fuzz.run import NAN_SIGN_OPS, replay
    head = ["t0 = L.tensor([-2.0, nan, 1.0])", "t1 = L.log(t0)", "t2 = L.signbit(t1)"]
    assert NAN_SIGN_OPS.search(head[1]) and not NAN_SIGN_OPS.search(head[2])
    assert replay(head) is None
    assert not NAN_SIGN_OPS.search("t3 = t1.flip(0)") and replay(head + ["t3 = t1.flip(0)"]) \
        is None
    import numpy as np
    import ember
    real = ember.Tensor.flip

    def flip(self, *dims):              # a flip that loses NaN signs: must be reported
        r = real(self, *dims)
        r._data[...] = np.where(np.isnan(r._data), np.abs(r._data), r._data)
        return r
    ember.Tensor.flip = flip
    try:
        d = replay(["t0 = L.tensor([-2.0, nan, 1.0])", "t1 = -t0", "t3 = t1.flip(0)"])
    finally:
        ember.Tensor.flip = real
    assert d is not None and d.kind == "nan sign"


def test_nan_signs_an_in_place_op_excuses_are_given_to_a_read_only_gradient_too():
    # autograd.grad's gradient of a sum is a read-only (expanded) array in ember; an excused
    # in-place op writing NaNs into it (xlogy_ of a negative: +NaN in torch, -NaN in NumPy)
    # must have torch's signs copied in like any other, or the next line reports them
    from fuzz.run import NAN_SIGN_OPS, replay
    lines = ["t0 = L.tensor(3.79, dtype=L.float64, requires_grad=True)",
             "t1 = L.autograd.grad(t0.sum(), [t0], allow_unused=True)",
             "t1[0].xlogy_(-3)",
             "t2 = t0 > L.tensor(nan, dtype=L.float64)"]
    assert NAN_SIGN_OPS.search(lines[2]) and not NAN_SIGN_OPS.search(lines[3])
    assert replay(lines) is None


def test_last_digit_differences_of_excused_ops_are_not_amplified_by_later_lines():
    # run.py's TOL: after a line calling one of NAN_SIGN_OPS (tan: NumPy's float32 tan is not
    # torch's in the last digit), ember's values take torch's bits, so that tan of tan near a
    # pole compares the second tan only; a difference beyond TOL is still reported
    from fuzz.run import replay
    import numpy as np
    import ember
    lines = ["t0 = L.tensor([[-1.5, 0.75, -0.48], [-3.0, 4.0, -1.5]], dtype=L.float32)",
             "t3 = t0.tan()", "t3.tan_()", "t4 = t3.frac()"]
    assert replay(lines) is None
    real = ember.Tensor.tan

    def tan(self):                      # a tan 1e-4 off: must be reported
        r = real(self)
        r._data[...] = r._data * np.float32(1 + 1e-4)
        return r
    ember.Tensor.tan = tan
    try:
        d = replay(lines[:2])
    finally:
        ember.Tensor.tan = real
    assert d is not None and d.kind == "value"
