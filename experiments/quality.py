"""``python -m experiments.quality``: Bruch Table 1 (:mod:`experiments.bruch2021.quality`)."""
import sys

from experiments.bruch2021.quality import main

if __name__ == "__main__":
    sys.exit(main())
