"""``python -m debench.cli``."""

from debench.cli import main

main()
