"""The README's two commands stay true: CI runs the test command verbatim, the demo command
installs the demo's extra and runs the training demo (tests/test_demo.py runs it), the autograd
tutorial it mentions runs, and the one-line autograd teaser prints what the README says, with
ember and with torch."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def readme_commands():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    return re.findall(r"^    (python3 -m venv .*)$", text, re.M)[:2]


def test_ci_runs_the_readme_test_command():
    demo, tests = readme_commands()
    assert "pytest" in tests and "'.[test]'" in tests
    assert "'.[demo]'" in demo and demo.endswith(".venv/bin/python examples/train_digits.py")
    assert os.path.exists(os.path.join(ROOT, "examples", "train_digits.py"))
    ci = open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8").read()
    assert tests in ci.splitlines()


def test_demo_runs_and_prints_torch_style_output():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "autograd_tutorial.py")],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "grad_fn=<MulBackward0>" in out.stdout and "tensor([[4.5000, 4.5000]," in out.stdout
    assert "Traceback" not in out.stdout + out.stderr


def test_teaser_prints_what_the_readme_says():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    code, printed = re.search(r"^Autograd in one line: `([^`]+)` prints `([^`]+)`", text,
                              re.M).groups()
    assert code.startswith("import ember as torch;")
    for program in (code, code.replace("import ember as torch", "import torch")):
        out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                             timeout=120, cwd=ROOT)
        assert out.returncode == 0, out.stderr
        assert out.stdout == printed + "\n"
