"""Zheng et al. (2007), "A regression framework for learning ranking functions using relative
relevance judgments": protocol (:mod:`.protocol`), report (:mod:`.report`), command (:mod:`.cli`)."""
