"""Entry point for ``python -m calc``."""

from calc.cli import main

main()
