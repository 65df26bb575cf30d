"""``python -m experiments.convergence``: Bruch Figure 2 (its record: :mod:`experiments.registry`)."""
import sys

from experiments.cli import entry_point

main = entry_point(__spec__.name)

if __name__ == "__main__":
    sys.exit(main())
