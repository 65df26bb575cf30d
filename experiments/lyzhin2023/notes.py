"""The tricks study's protocol notes in the three columns every report prints: as the paper, our
choices where it is silent, deviations. Pure functions of a
:class:`~experiments.lyzhin2023.protocol.TricksConfig`; docs/protocols/lyzhin2023.md gives the sources."""
from __future__ import annotations

import math

from experiments.tuning_report import Words
from ltrrepro.datasets import base_dataset
from ltrrepro.fit import BACKENDS
from ltrrepro.fit.boosting import PRESETS

__all__ = ["as_paper", "choices", "deviations", "TUNING", "hp_words", "library_defaults"]


def hp_words(cfg) -> str:
    """How the fixed tables' captions name their hyper-parameters (``--hp``)."""
    return "at each library's defaults" if cfg.hp == "defaults" else f"at the preset '{cfg.preset}'"


#: the words of a tuned run's notes and tuning table (:mod:`experiments.tuning_report`)
TUNING = Words(
    who="every system", one="system", parts="training and validation parts",
    detail=lambda cfg: f"; the space (ltrrepro.fit.space) shared by every library, the same budget for every system; "
                       f"each search starts from the preset '{cfg.preset}' (its rounds and early stopping, and its "
                       f"values of what the space leaves out), as the tuned units do",
    replaces=lambda cfg: (", beside the fixed tables at each library's defaults (--hp defaults)" if cfg.hp == "defaults"
                          else ", beside the fixed tables at the preset (--hp preset; --hp defaults reports the "
                               "libraries' defaults)"),
    as_paper="tuning on the validation part only, one budget per system (§4.1 'Parameter tuning')",
    value="valid value", fixed=hp_words,
    searched="Each system's best configuration of its search (Optuna TPE, unpruned) on the validation value of "
             "the metric it is trained for (NDCG@10 for a system trained for none in particular)")


def _words(values: dict) -> str:
    shown = {bool: lambda v: "true" if v else "false", float: lambda v: f"{v:g}"}
    return ", ".join(f"{k} {shown.get(type(v), str)(v)}" for k, v in values.items())


def library_defaults(cfg) -> list[str]:
    """Each library's defaults as its backend declares them (read from the installed library), for the
    libraries of the systems the run trains: the harness's field names, the library's own parameters
    restored, the losses whose defaults differ, and what stays the harness's."""
    by_lib: dict = {}
    for system in cfg.trained:
        loss = cfg.loss_of(system)                   # the loss's name, without its parameters
        by_lib.setdefault(cfg.library_of(system), []).append(loss[:loss.find(":")] if ":" in loss else loss)
    out = []
    for lib, losses in by_lib.items():
        b = BACKENDS[lib]
        common = {**b.defaults, **b.default_params}
        own = {}
        for loss in dict.fromkeys(losses):
            fields, params = b.library_defaults(loss)
            if diff := {k: v for k, v in {**fields, **params}.items() if common.get(k) != v}:
                own[loss] = diff
        out.append(f"{b.label} at its defaults as read from {b.label} {b.defaults_read} (a model trained with the "
                   f"loss alone; tests/lib/test_library_defaults.py), in the harness's names (max_depth 0: none): "
                   f"{_words(b.defaults)}"
                   + (f"; its own {_words(b.default_params)}" if b.default_params else "")
                   + "".join(f"; {loss}: {_words(d)}" for loss, d in own.items())
                   + f"; kept the harness's: {', '.join(b.harness_params)}")
    return out


def as_paper(cfg) -> list[str]:
    out = ["test NDCG@10, MRR@10, MAP@10 and ERR@10 (§4.1), each system's variant trained for the metric it is "
           "reported on where the library has one (YetiLoss `mode`, LambdaMart and StochasticRank `metric`, XGBoost "
           "rank:map), truncated at 10",
           "YetiRank's smoothing at CatBoost's defaults unless an ablation changes one knob: Gumbel noise, one "
           "neighbour, dcg_type Base, dcg_denominator Position for the loss (CatBoost's documentation)",
           "the ablations as paired differences against the same system on the same split (§4.3)"]
    if cfg.split == "official":
        out.append("the datasets' official train, validation and test parts (§4.1 'Datasets'; Fold 1 of a fold "
                   "layout), one fixed split: the trials differ in the model seed only")
    if cfg.grow_policy == "SymmetricTree":
        out.append("CatBoost's default symmetric (oblivious) trees, as the paper used them (--grow-policy Lossguide: "
                   "leaf-wise)")
    if cfg.hp == "defaults":
        out.append("the fixed tables at each library's default hyper-parameters (§4.2 'Comparison with default "
                   "hyper-parameters')"
                   + (", beside the tuned ones" if cfg.tune else ""))
    if cfg.tune:
        out.append("hyper-parameters tuned on the validation part with one budget per system (§4.1)")
    return out


def choices(cfg) -> list[str]:
    out = ["MRR@10 and MAP@10 count grades >= 1 as relevant (the paper's binarisation was not readable here; "
           "CatBoost's own MRR/MAP border 0.5 on integer grades); XGBoost's rank:map trains on the same binarisation "
           "(it refuses graded labels)",
           "ERR@10 with gain (2^g − 1)/2^4 (Chapelle et al. 2009), grades 0..4",
           "model selection by early stopping on the validation value of the metric each variant is trained for "
           f"(NDCG@10 for a system trained for none in particular), {cfg.boosting.early_stopping} rounds' patience "
           "as the preset",
           *_hp_choice(cfg),
           *_split_choice(cfg),
           "the train–test gap: NDCG@10 on the training part minus NDCG@10 on the test part, per unit"]
    if cfg.tune:
        out.append("the searches run every configuration to its end (no pruning, unlike the other studies' median "
                   "rule): benchmarks/bench_tuning.py measured a pruned λMART search reaching a best validation NDCG@5 "
                   "0.0155 below the unpruned one of the same budget, and this study's comparison rests on tuning")
    if base_dataset(cfg.dataset) == "istella" and cfg.split == "random":
        out.append("Istella has no validation part of its own (the paper draws one from its training part): here, with "
                   f"--split random, the trial's split of its pooled train and test queries draws it with the run's "
                   f"seed {cfg.seed} (recorded in the manifest)")
    if cfg.grow_policy != "SymmetricTree" and "yetirank_pairwise" in cfg.families:
        out.append("YetiRankPairwise keeps symmetric trees under --grow-policy Lossguide (CatBoost trains its pairwise "
                   "mode with no other on the CPU)")
    skipped = cfg.skipped()
    if skipped:
        out.append("skipped (library not installed): " + "; ".join(skipped))
    return out


def _hp_choice(cfg) -> list[str]:
    """The fixed units' hyper-parameters (``--hp``) where the paper is silent on them."""
    if cfg.hp == "preset":
        return [f"at --hp preset: symmetric trees of depth round(log2(leaves)) = "
                f"{max(1, round(math.log2(max(2, cfg.boosting.num_leaves))))} from the preset's leaves; no L2, no "
                "bagging, no split-score noise in every library"]
    return [*library_defaults(cfg),
            "at the libraries' defaults --grow-policy Lossguide and the trees-leafwise ablation grow CatBoost's "
            "Lossguide trees at its Lossguide defaults (max_leaves 31, min_data_in_leaf 1, depth 6)"]


def _split_choice(cfg) -> list[str]:
    """The parts the units use, where the paper is silent: the random splits, or Istella's drawn validation part."""
    if cfg.split == "random":
        return ["every dataset split per trial into 60/20/20 query parts with the run's seed: the validation part is "
                "drawn from the pooled queries (the paper keeps the official parts and draws only Istella's)"]
    if cfg.drawn_valid:
        return [f"Istella has no validation part of its own: {cfg.drawn_fraction:.0%} of its official training queries are "
                f"drawn as one (the paper draws one at random and does not state its size) with the run's seed "
                f"{cfg.seed}, SeedSequence({cfg.seed}, spawn_key=(0, 0)), the same part for every trial; each unit "
                "records the seed and the number of queries drawn (valid_drawn)"]
    return []


def deviations(cfg, base: list[str]) -> list[str]:
    out = list(base)
    b = cfg.boosting
    if cfg.hp == "preset":
        out.append(f"hyperparameters '{cfg.preset}' {PRESETS[cfg.preset]} with {b.rounds} rounds in every library, "
                   "not the libraries' defaults (--hp defaults)" +
                   ("" if cfg.tune else ", not tuned (--tune N tunes every system)"))
    else:
        counts = ", ".join(f"{BACKENDS[lib].label} {BACKENDS[lib].default_rounds}"
                           for lib in dict.fromkeys(cfg.library_of(s) for s in cfg.trained))
        out.append(f"at the libraries' defaults but the number of trees: at most {b.rounds} with early stopping on the "
                   f"validation part ({b.early_stopping} rounds' patience, as the preset '{cfg.preset}'), not each "
                   f"library's default count ({counts}, with no early stopping)"
                   + ("" if cfg.tune else "; not tuned (--tune N tunes every system)"))
    if cfg.tune:
        out.append(f"the searches start from the preset '{cfg.preset}' {PRESETS[cfg.preset]}, not from the "
                   "libraries' defaults: what the space leaves out (bins, CatBoost's bagging and noise, XGBoost's "
                   "growth) stays the preset's in the tuned tables")
    if cfg.split == "random":
        out.append("random 60/20/20 query splits per trial instead of the datasets' official parts")
    out.append("the paper's result tables are not transcribed (experiments/lyzhin2023/paper.py says what was "
               "searched): the claims are powered against the smallest effect of interest")
    return out
