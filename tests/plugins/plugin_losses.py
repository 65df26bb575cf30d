"""Objectives defined outside ltrrepro, as a user's own module would (used by test_plugins)."""
import numpy as np

from ltrrepro.objectives import Objective, objective_factory


class Squared(Objective):
    """Pointwise squared loss on the grades, ½ scale (f − y)²: a 10-line plug-in."""

    name = "squared"

    def __init__(self, scale: float = 1.0):
        self.scale = float(scale)

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        f = np.asarray(scores, dtype=np.float64)
        y = np.asarray(labels, dtype=np.float64)
        noise = rng.normal(0.0, 1e-3, f.shape) if rng is not None else 0.0    # uses its seeded generator
        return self.scale * (f - y) + noise, np.full_like(f, self.scale)


def make_squared(scale=2.0) -> Squared:
    """A factory annotated to return an objective is a plug-in too."""
    return Squared(scale=scale)


@objective_factory
def marked_squared(scale=3.0):
    """So is a factory marked with ``@objective_factory``."""
    return Squared(scale=scale)


def unmarked_squared(scale=2.0):
    """A function that does not say it returns an objective is never called as a plug-in."""
    raise AssertionError("an unmarked function was called")


class NaNAfterFirst(Squared):
    """Breaks on real data: NaN gradients from the second iteration on."""

    name = "nan-after-first"

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        g, h = super().grad_hess(scores, labels, offsets, iteration, rng)
        if iteration >= 1:
            g[0] = np.nan
        return g, h


class ShortOnBigLists(Squared):
    """Breaks on real data: one gradient short for more than 10 documents."""

    name = "short"

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        g, h = super().grad_hess(scores, labels, offsets, iteration, rng)
        return (g[:-1], h[:-1]) if g.size > 10 else (g, h)


class NotAnObjective:
    pass


class CrashOnData(Squared):
    """Kills its process on real data (from the second iteration): ``how`` is ``segfault``,
    ``exit`` (``os._exit(3)``) or ``sysexit`` (``sys.exit(0)``)."""

    name = "crash"

    def __init__(self, how: str = "segfault"):
        super().__init__()
        self.how = how

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        if iteration >= 1 and len(scores) > 10:
            import os
            import sys
            if self.how == "segfault":
                import ctypes
                ctypes.string_at(0)
            elif self.how == "exit":
                os._exit(3)
            else:
                sys.exit(0)
        return super().grad_hess(scores, labels, offsets, iteration, rng)


class GlobalRandom(Squared):
    """Draws from numpy's global state instead of its rng: not repeatable."""

    name = "global-random"

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        g, h = super().grad_hess(scores, labels, offsets, iteration, None)
        return g + np.random.normal(0.0, 1e-3, g.shape), h


class IgnoresItsKnob(Objective):
    """A loss with a parameter that changes nothing (squared error on the grades, ``knob``
    ignored; no randomness): two arms that differ only in ``knob`` train the same model, the case
    the report's identical-models guard names."""

    name = "ignores_its_knob"

    def __init__(self, knob: float = 1.0):
        self.knob = float(knob)

    def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
        f = np.asarray(scores, dtype=np.float64)
        return f - np.asarray(labels, dtype=np.float64), np.ones_like(f)
