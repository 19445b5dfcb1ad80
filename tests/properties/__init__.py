"""Property tests (hypothesis), one file per mechanism."""
