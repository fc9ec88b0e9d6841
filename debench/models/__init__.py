"""Models: one litellm-backed model, the embedded local server wrapper, and baselines."""
