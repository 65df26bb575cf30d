"""Zheng et al. (2007), "A regression framework for learning ranking functions using relative
relevance judgments": the paper's numbers (:mod:`.paper`), protocol and unit (:mod:`.protocol`),
protocol notes (:mod:`.notes`), claims (:mod:`.claims`), report (:mod:`.report`) and the study's
record (:mod:`.studies`)."""
