"""Xia, Zhai, Wang: the SE and OLE split principles for McRank and LambdaMART — the paper's
numbers (:mod:`.paper`), protocol and unit (:mod:`.protocol`), protocol notes (:mod:`.notes`),
claims (:mod:`.claims`), report (:mod:`.report`) and the study's record (:mod:`.studies`)."""
