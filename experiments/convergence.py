"""``python -m experiments.convergence``: Bruch Figure 2 (:mod:`experiments.bruch2021.convergence`)."""
import sys

from experiments.bruch2021.convergence import main

if __name__ == "__main__":
    sys.exit(main())
