"""``python -m experiments.robustness``: Bruch Figure 3 (the main job) (its record: :mod:`experiments.registry`)."""
import sys

from experiments.cli import entry_point

main = entry_point(__spec__.name)

if __name__ == "__main__":
    sys.exit(main())
