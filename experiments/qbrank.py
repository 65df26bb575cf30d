"""``python -m experiments.qbrank``: Zheng et al. 2007, Table 1 and Figure 1 (its record: :mod:`experiments.registry`)."""
import sys

from experiments.cli import entry_point

main = entry_point(__spec__.name)

if __name__ == "__main__":
    sys.exit(main())
