"""``python -m experiments.robustness``: Bruch Figure 3 (the README's main job) (:mod:`experiments.bruch2021.robustness`)."""
import sys

from experiments.bruch2021.robustness import main

if __name__ == "__main__":
    sys.exit(main())
