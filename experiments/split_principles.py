"""``python -m experiments.split_principles``: Xia et al. 2008, Tables 2 and 3, Figure 2 (its record: :mod:`experiments.registry`)."""
import sys

from experiments.cli import entry_point

main = entry_point(__spec__.name)

if __name__ == "__main__":
    sys.exit(main())
