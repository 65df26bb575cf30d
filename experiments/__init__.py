"""One package per paper (:mod:`.bruch2021`, :mod:`.zheng2007`, :mod:`.xia`), the shared
command line (:mod:`.cli`), configurations (:mod:`.config`), running (:mod:`.study`) and
analysis (:mod:`.analysis`); ``python -m experiments.<name>`` entry modules."""

#: experiment name (as a manifest records it) -> the module with its ``report(store)``
REPORTS = {
    "quality": "experiments.bruch2021.quality",
    "convergence": "experiments.bruch2021.convergence",
    "robustness": "experiments.bruch2021.robustness",
    "clicks": "experiments.bruch2021.clicks",
    "jensen_gap": "experiments.bruch2021.jensen_gap",
    "qbrank": "experiments.zheng2007.report",
    "split_principles": "experiments.xia.report",
}
