"""Property-based tests (hypothesis) of the lessons' public functions, one file per lesson."""
