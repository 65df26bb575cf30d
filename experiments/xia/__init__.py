"""Xia, Zhai, Wang: the SE and OLE split principles for McRank and LambdaMART: protocol
(:mod:`.protocol`), report (:mod:`.report`), command (:mod:`.cli`)."""
