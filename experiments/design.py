"""A run's design: the waves its units run in and the decision after each report.

:func:`experiments.study.run_and_report` runs every study the same way — for each wave of the
design, run (or resume) the wave's units, report on them, and ask the design whether to stop
— so the two designs differ only here:

* :class:`Fixed` (``--trials N``): one wave, every unit; no decision (the report is the run's).
* :class:`Sequential` (``--trials auto``): a configuration's ``trials`` is the maximum N and
  ``looks`` the number K of equally spaced looks (:func:`ltrrepro.inference.sequential.look_sizes`);
  wave k trains the units of the first n_k trials, and after its report every tested claim is
  held to its bounds (:class:`ltrrepro.inference.sequential.Monitor`: Lan–DeMets
  O'Brien–Fleming-type efficacy bounds at the report's α, two-sided; a non-binding β-spending futility bound
  against the effect the claim is powered against; Holm-type α recycling within each claim
  family, or none with ``--correction none``). It stops when every tested claim is settled
  (efficacy, contradicted, futility) or at look K. The final report is the stopping look's,
  its claims those of each claim's settling look with the sequential verdict, the stage-wise
  adjusted p and CI (``claims.json``: ``sequential``), and ``tables/sequential`` every look's
  bounds and decisions; the manifest records the design and the stop.

A look is a report over finished trials and the store resumes finished units, so an
interrupted sequential run, re-run, takes its looks again from the stored units (reports only)
and goes on from the last one, to the same result. A design holds the state of one run: made
by :func:`design_of` for each.
"""
from __future__ import annotations

import math
import sys

from experiments.errors import UsageError
from experiments.sequential_report import (correction_of, estimate_lines, final_report, look_text, monitored,
                                           settled_claim)
from ltrrepro.inference import sequential as sq
from ltrrepro.inference.tlaw import alpha_warning

__all__ = ["Fixed", "Sequential", "design_of"]


class Fixed:
    """One wave of every unit; its report is the run's (also on the units that finished when
    some failed)."""

    report_on_failure = True

    def __init__(self, trials: int):
        self.trials, self.stop = trials, ""
        self.sizes = (math.inf,)                 # one wave: every trial

    def check(self, execution) -> None:
        """Nothing this design refuses."""

    def manifest(self) -> dict:
        return {"trials": self.trials}

    def estimate(self, config, store, units, lines, inference) -> list:
        return lines

    def decide(self, k: int, info, inference, quiet: bool) -> bool:
        return True

    def final(self, info, root):
        return info

    def failed(self, k: int, failed) -> None:
        """Nothing to record."""

    def unstored(self, k: int) -> None:
        """Nothing to record."""

    def record(self) -> dict:
        return {}


class Sequential:
    """``--trials auto``: waves of trials with a decision after each look (module docstring)."""

    report_on_failure = False

    def __init__(self, max_trials: int, looks: int):
        self.sizes = sq.look_sizes(max_trials, looks)
        self.design = {"max_trials": max_trials, "looks": len(self.sizes), "sizes": self.sizes,
                       "spending": "Lan–DeMets OBF",
                       "futility": "non-binding, beta-spending (OBF type) at the claim's effect"}
        self.monitor, self.settled, self.stop = None, {}, ""

    def check(self, execution) -> None:
        if execution.no_report:
            raise UsageError("--no-report: a sequential run decides at each look from the report; drop it (or give "
                             "--trials N)")

    def manifest(self) -> dict:
        return {"trials": "auto", "sequential": self.design}

    def estimate(self, config, store, units, lines, inference) -> list:
        """The expected and maximum cost under the design (:func:`estimate_lines`) at the report's α."""
        store.select([u.key for u in units])
        return estimate_lines(config, store, units, lines, inference.alpha)

    def decide(self, k: int, info, inference, quiet: bool) -> bool:
        """Hold the look's tested claims to their bounds at the report's α (``inference``); True
        when every one is settled or at the last look."""
        sizes = self.sizes
        if self.monitor is None:
            self.monitor = sq.Monitor(sizes, alpha=inference.alpha, correction=correction_of(info.claims, inference))
            warning = alpha_warning(sizes, inference.alpha)         # a small maximum: the real α measured
            if warning and not quiet:
                print(f"warning: {warning}", file=sys.stderr)
        monitor, keys = self.monitor, [e["key"] for e in monitored(info.claims)]
        new = monitor.look(k, monitored(info.claims))
        for c in info.claims:
            if c.text in monitor.decisions and c.text not in self.settled:
                self.settled[c.text] = settled_claim(c, monitor.decisions[c.text], len(sizes), inference.alpha)
        if not quiet:
            print(look_text(k, sizes, new, len(keys) - sum(x in monitor.decisions for x in keys)), file=sys.stderr)
        if not (keys and monitor.done(keys) or k == len(sizes) - 1):
            return False
        kinds = [d["stop"] for d in monitor.decisions.values()]
        tally = ", ".join(f"{kinds.count(x)} {x}" for x in (sq.EFFICACY, sq.CONTRADICTED, sq.FUTILITY, sq.MAXIMUM)
                          if x in kinds)
        why = (f"every claim crossed a bound ({tally})" if k < len(sizes) - 1 else
               f"the maximum reached ({tally})" if keys else "the maximum reached; no claim rests on a p-value")
        self.stop = f"stopped at look {k + 1} of {len(sizes)} ({sizes[k]} of at most {sizes[-1]} trials): {why}"
        return True

    def final(self, info, root):
        """The stopping look's report with each claim as its settling look gave it, written."""
        return final_report(info, self.settled, self.monitor, self.sizes, self.stop).write(root)

    def failed(self, k: int, failed) -> None:
        self.stop = f"stopped at look {k + 1}: {len(failed)} unit(s) failed"

    def unstored(self, k: int) -> None:
        """A report-only pass stops before look ``k``: its trials are not all stored."""
        self.stop = f"reported at look {k} of {len(self.sizes)}: the trials of look {k + 1} are not all stored" \
            if k else ""

    def record(self) -> dict:
        m = self.monitor
        return {"sequential": {**self.design, "alpha": m.alpha if m else None, "stop": self.stop,
                               "claims": dict(m.decisions) if m else {}}}


def design_of(config) -> Fixed | Sequential:
    """The design of ``config``: sequential when it has ``looks`` (``--trials auto``), else fixed."""
    looks = getattr(config, "looks", None)
    return Sequential(config.trials, looks) if looks else Fixed(config.trials)
