"""The outside author's surface: what a study written outside the repository may import
(docs/own-study.md). Everything named here is public — documented, in its module's
``__all__``, and kept working across versions (a change is announced, the old form kept for a
release); every other module and name is the harness's own and may change without notice.
``tests/experiments/test_public_surface.py`` holds it: each name exists and is exported, the
example study (``examples/ltrrepro-toy-study``) imports nothing else and keeps the house rules it
teaches, and the guide lists every module."""
from __future__ import annotations

__all__ = ["PUBLIC"]

#: module -> the names an outside study may import from it
PUBLIC = {
    # the study: its record, configuration, fields and errors
    "experiments": ("run", "configure", "load"),
    "experiments.registry": ("Experiment", "Across"),
    "experiments.config": ("RunConfig",),
    "experiments.options": ("option",),
    "experiments.errors": ("UsageError",),
    # its report: the run's frame and paired comparisons; --tune declared as data
    "experiments.analysis": ("canonical", "label", "frame", "paired", "compare", "summary", "missing_notes",
                             "with_table"),
    "experiments.tuning": ("Search", "tuned_boosting"),
    "experiments.tuning_report": ("Words",),
    # its units: what a unit function gets and gives back
    "ltrrepro.runner": ("Unit", "UnitRecord", "UnitContext", "DataRef", "fingerprint"),
    "ltrrepro.splits": ("trial_split", "random_query_split"),
    "ltrrepro.datasets": ("is_synthetic", "load_dataset"),
    "ltrrepro.metrics": ("evaluate", "canonical"),
    "ltrrepro.trec": ("test_arrays",),
    # its models: a loss and a system
    "ltrrepro.objectives": ("Objective",),
    "ltrrepro.fit": ("System", "Boosting", "system_for"),
    # its claims and files
    "ltrrepro.inference": ("Inference", "Claim", "Evidence", "Expectation", "judge", "judge_comparison", "correct"),
    "ltrrepro.report": ("Report", "Table", "Figure"),
}
