"""``python -m experiments.debiasing``: learning to rank from biased clicks, Hu et al. 2019's protocol (its record: :mod:`experiments.registry`)."""
import sys

from experiments.cli import entry_point

main = entry_point(__spec__.name)

if __name__ == "__main__":
    sys.exit(main())
