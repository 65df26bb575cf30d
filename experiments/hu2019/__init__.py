"""Learning to rank from biased clicks with boosted trees (Hu, Wang, Peng, Li, WWW 2019's protocol):
the libraries' position debiasing, Unbiased LambdaMART and IPS side by side — settings and numbers
(:mod:`.paper`), protocol (:mod:`.protocol`), notes (:mod:`.notes`), claims (:mod:`.claims`),
report (:mod:`.report`), the study's record (:mod:`.studies`)."""
