"""Kang, de Rijke, Oosterhuis (SIGIR 2024) beside Bruch (2021): does second-order information
matter for ranking GBDTs? The ``hessian`` study (``python -m experiments.hessian``)."""
