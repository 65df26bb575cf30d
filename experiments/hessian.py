"""``python -m experiments.hessian``: each ranking loss under each Hessian treatment, Kang et al. 2024 and Bruch 2021 (its record: :mod:`experiments.registry`)."""
import sys

from experiments.cli import entry_point

main = entry_point(__spec__.name)

if __name__ == "__main__":
    sys.exit(main())
