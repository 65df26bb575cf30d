"""Units of work and their seeds.

A **unit** is one (experiment, dataset, trial, model, setting) — one trained model and its
evaluation. Its random streams all descend from one ``SeedSequence(seed)`` through fixed
spawn keys, so a unit's numbers depend only on the seed and on what the unit is, never on
the order, the number of workers or which units ran before:

* ``(trial, 0)``           — the trial's query split (:func:`ltrrepro.splits.trial_split`);
* ``(trial, 1, h(setting))`` — the training-data transform of a setting (noise, clicks),
  shared by every model of the trial: the comparison is paired;
* ``(trial, 2, h(setting), h(model))`` — the model's own randomness (XE_NDCG's γ, library seeds);
* ``(trial, 3, h(setting), h(model))`` — ``np.random``'s and ``random``'s global state, seeded
  in the process that runs the unit just before it runs (:func:`seed_globals`), so that code
  that draws from them anyway (a plug-in) gives the same numbers at every ``--jobs``;

``h`` is CRC-32 of the canonical text of the setting or model name.
"""
from __future__ import annotations

import zlib
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

__all__ = ["Unit", "unit_seed", "seed_globals", "STREAM_SPLIT", "STREAM_TRANSFORM", "STREAM_MODEL", "STREAM_GLOBAL"]

STREAM_SPLIT, STREAM_TRANSFORM, STREAM_MODEL, STREAM_GLOBAL = 0, 1, 2, 3


def _h(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


@dataclass(frozen=True)
class Unit:
    """One model trained and evaluated in one trial under one setting."""

    experiment: str
    dataset: str
    trial: int
    model: str
    setting: tuple = ()           # ((name, value), ...), in a fixed order
    seed: int = 0

    @property
    def setting_text(self) -> str:
        return ",".join(f"{k}={v}" for k, v in self.setting) or "base"

    @property
    def key(self) -> str:
        return f"{self.dataset}/t{self.trial:03d}/{self.setting_text}/{self.model}"

    @property
    def settings(self) -> dict:
        return dict(self.setting)

    def transform_seed(self) -> np.random.SeedSequence:
        """Seed of the training-data transform: shared by all models of this trial and setting."""
        return unit_seed(self.seed, self.trial, STREAM_TRANSFORM, self.setting_text)

    def model_seed(self) -> np.random.SeedSequence:
        return unit_seed(self.seed, self.trial, STREAM_MODEL, self.setting_text, self.model)

    def global_seed(self) -> np.random.SeedSequence:
        """Seed of ``np.random``'s and ``random``'s global state while the unit runs."""
        return unit_seed(self.seed, self.trial, STREAM_GLOBAL, self.setting_text, self.model)

    def describe(self) -> dict:
        return {"experiment": self.experiment, "dataset": self.dataset, "trial": self.trial, "model": self.model,
                "setting": dict(self.setting), "seed": self.seed}


def unit_seed(seed: int, trial: int, stream: int, *labels: str) -> np.random.SeedSequence:
    """``SeedSequence(seed, spawn_key=(trial, stream, h(label)...))`` (see module docstring).

    ``(trial, 0)`` equals ``SeedSequence(seed).spawn(trial + 1)[trial].spawn(1)[0]``, the
    stream of :func:`ltrrepro.splits.trial_split`.
    """
    return np.random.SeedSequence(seed, spawn_key=(int(trial), int(stream), *(_h(x) for x in labels)))


@contextmanager
def seed_globals(unit: Unit):
    """Within the block, ``np.random``'s and ``random``'s global state are seeded from the
    unit's own stream (:meth:`Unit.global_seed`), whatever ran in this process before; the
    process's previous states are restored after it. Units must draw from their generators;
    this makes one that draws from the global state anyway (a plug-in calling
    ``np.random.rand`` after iteration 0, on long lists only) repeatable at any ``--jobs``."""
    import random

    state = unit.global_seed().generate_state(4)              # 128 bits, uint32
    before = np.random.get_state(), random.getstate()
    np.random.seed(state)
    random.seed(int.from_bytes(state.tobytes(), "little"))
    try:
        yield
    finally:
        np.random.set_state(before[0])
        random.setstate(before[1])
