"""The synthetic corpus for benchmarks (issue 17: moved out of papers)."""
