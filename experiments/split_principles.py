"""``python -m experiments.split_principles``: Xia et al. Tables 2/3 and Figure 2 (:mod:`experiments.xia.cli`)."""
import sys

from experiments.xia.cli import main

if __name__ == "__main__":
    sys.exit(main())
