"""The benchmark command must keep working: `benchmarks/run.py --quick` runs every workload
once (ember, torch and the NumPy floor, each in a fresh process), checks ember's gradients
against torch's and prints the table. Timings are not judged here."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_benchmark_quick_run():
    p = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "run.py"), "--quick"],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    out = p.stdout
    assert p.returncode == 0, out + p.stderr
    rows = [line for line in out.splitlines() if line.startswith("| W")]
    for name in ["W1", "W2", "W3", "W4", "W4M", "W5", "W6", "W7", "W8"]:
        assert any(r.startswith(f"| {name} ") for r in rows), f"{name} missing:\n{out}"
    assert "FAIL" not in out and "error" not in out, out
    assert "WRONG" not in out, out
    # every workload with gradients compared ember's against a reference
    for name in ["W1", "W2", "W3", "W4", "W4M", "W5", "W6"]:
        row = next(r for r in rows if r.startswith(f"| {name} "))
        assert "ember vs " in row and ": ok" in row, row
