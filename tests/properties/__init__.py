"""Property-based tests (hypothesis), one file per lesson: tests/properties/test_NAME.py.

A package, so these files may share names with tests/test_NAME.py without clashing.
"""
