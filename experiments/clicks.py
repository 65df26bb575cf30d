"""``python -m experiments.clicks``: Bruch Figure 4 (:mod:`experiments.bruch2021.clicks`)."""
import sys

from experiments.bruch2021.clicks import main

if __name__ == "__main__":
    sys.exit(main())
