"""Bias probes: transformed copies of debates that expose position, label, length and injection bias."""
