"""A unit's data parts under ``--split`` (:func:`experiments.shared_fields.split`), for the
studies whose papers train on the datasets' official parts (Lyzhin et al. 2023; Kang et al. 2024's
Yahoo! Set 1).

* ``official``: the dataset's official train, validation and test parts of fold 1, each read
  through the reader's cache (:func:`ltrrepro.datasets.load_fold`); one fixed split, so the trials
  differ by the model seed only. A layout without a validation part (Istella) has one drawn from
  its training queries (:func:`ltrrepro.splits.drawn_validation`, :data:`DRAWN_VALID` of them,
  the run's seed; one part per run), recorded in each unit as ``valid_drawn``.
* ``random``: trial ``t``'s 60/20/20 split of the pooled queries (:func:`ltrrepro.splits.trial_split`),
  the default on synthetic data and a user's files (which have no official parts).

A configuration with the field reads these through :func:`official`, :func:`drawn_valid`,
:func:`drawn_line` and :func:`check`; a study's record says :func:`default` in its
``data_defaults`` and ``reads_data=lambda cfg: not official(cfg)``.
"""
from __future__ import annotations

from experiments.errors import UsageError
from ltrrepro.datasets import REGISTRY, is_synthetic, load_fold, locate_fold
from ltrrepro.runner import DataRef
from ltrrepro.splits import DRAWN_VALID_KEY, drawn_validation, trial_split

__all__ = ["SPLITS", "DRAWN_VALID", "official", "drawn_valid", "drawn_line", "check", "default", "before",
           "unit_parts"]

#: ``--split``: the dataset's official parts (the papers') or random 60/20/20 splits of the pooled queries per trial
SPLITS = ("official", "random")
#: the share of the official training queries drawn as the validation part of a layout without one (Istella:
#: Lyzhin et al. draw one and do not state its size; 0.2, the share of the random splits' validation part)
DRAWN_VALID = 0.2


def official(cfg) -> bool:
    """The units train, early-stop and test on the dataset's official parts (``--split official``)."""
    return cfg.split == "official"


def drawn_valid(cfg) -> bool:
    """The official parts lack a validation part (Istella): the units draw one from the training part."""
    return official(cfg) and "valid" not in REGISTRY[cfg.dataset].parts


def drawn_line(cfg) -> str | None:
    """What a run on a layout without a validation part says at its start (None: nothing to say)."""
    if not drawn_valid(cfg):
        return None
    return (f"{cfg.dataset}: no official validation part; drawn from the official training part's queries: "
            f"{DRAWN_VALID:.0%} of them, seed {cfg.seed} (SeedSequence({cfg.seed}, spawn_key={DRAWN_VALID_KEY})), "
            f"the same for every trial (each unit records the seed and the number drawn)")


def check(cfg) -> None:
    """``--split official`` needs a registered dataset (synthetic data and a user's files have no parts)."""
    if cfg.split not in SPLITS:
        raise UsageError(f"--split: one of {', '.join(SPLITS)}, not {cfg.split!r}")
    if official(cfg) and cfg.dataset not in REGISTRY:
        raise UsageError(f"--split official: {cfg.dataset} has no official parts (the registered datasets have: "
                         f"{', '.join(REGISTRY)}); use --split random")


def default(dataset: str) -> dict:
    """A study's ``data_defaults`` for the split: official on a registered dataset, else the field's default."""
    return {"split": "official"} if dataset in REGISTRY and not is_synthetic(dataset) else {}


def before(cfg) -> None:
    """A run on official parts: their files are there, before any work; a layout without a
    validation part says at the start what is drawn for it (one line on stderr)."""
    if official(cfg):
        import sys
        locate_fold(cfg.dataset, cfg.data_dir, 1)
        if line := drawn_line(cfg):
            print(f"note: {line}", file=sys.stderr)


def unit_parts(unit, ctx, parts=("train", "valid", "test")) -> tuple[dict, dict]:
    """The unit's ``parts`` by name, and what was drawn for them (a record's field, ``valid_drawn``;
    {} when nothing was): the official parts of fold 1, Istella's validation part drawn from its
    training queries, or trial ``t``'s random split of the pooled queries (module docstring)."""
    cfg = ctx["cfg"]
    if not official(cfg):
        ds = DataRef(**ctx["data"]).open()
        split = trial_split(ds.n_queries, unit.seed, unit.trial)
        return {p: ds.subset(getattr(split, p)) for p in parts}, {}
    if not drawn_valid(cfg):
        return load_fold(cfg.dataset, data_dir=cfg.data_dir, fold=1, parts=parts), {}
    wanted = ("train",) * bool({"train", "valid"} & set(parts)) + ("test",) * ("test" in parts)
    read = load_fold(cfg.dataset, data_dir=cfg.data_dir, fold=1, parts=wanted)
    drawn = {}
    if "train" in read:
        full = read.pop("train")
        split = drawn_validation(full.n_queries, unit.seed, DRAWN_VALID)
        read.update(train=full.subset(split.train), valid=full.subset(split.valid))
        drawn = {"valid_drawn": {"seed": unit.seed, "spawn_key": list(DRAWN_VALID_KEY), "fraction": DRAWN_VALID,
                                 "n_queries": len(split.valid), "of_train_queries": int(full.n_queries)}}
    return {p: read[p] for p in parts}, drawn
