"""Performance and fault benchmarks of the debench harness itself (``python -m benchmarks``)."""
