"""The differential fuzzer: random programs run line by line through torch and ember
(gen.py writes them, run.py runs and compares them, test_fuzz.py is the suite's entry)."""
