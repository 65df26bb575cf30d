"""``python -m experiments.qbrank``: Zheng et al. Table 1 and Figure 1 (:mod:`experiments.zheng2007.cli`)."""
import sys

from experiments.zheng2007.cli import main

if __name__ == "__main__":
    sys.exit(main())
