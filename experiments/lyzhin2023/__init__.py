"""Lyzhin, Ustimenko, Gulin, Prokhorenkova (ICML 2023), "Which Tricks are Important for Learning to
Rank?": what the paper reports in :mod:`.paper`; the protocol, systems and unit in :mod:`.protocol`;
the notes in :mod:`.notes`; the claims in :mod:`.claims`; the report in :mod:`.report`; the ``tricks``
study's record in :mod:`.studies`."""
