"""``python -m experiments.jensen_gap``: Bruch Figure 1 (:mod:`experiments.bruch2021.jensen_gap`)."""
import sys

from experiments.bruch2021.jensen_gap import main

if __name__ == "__main__":
    sys.exit(main())
