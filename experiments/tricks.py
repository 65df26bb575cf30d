"""``python -m experiments.tricks``: which tricks matter for GBDT ranking, Lyzhin et al. 2023's protocol (its record: :mod:`experiments.registry`)."""
import sys

from experiments.cli import entry_point

main = entry_point(__spec__.name)

if __name__ == "__main__":
    sys.exit(main())
