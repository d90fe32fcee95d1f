"""Post-detection steps: what runs after the detectors, once per note, in order.

``resolve`` (:mod:`~clinanon.steps.resolve`: overlaps, priorities, name merging) or ``select``
(:mod:`~clinanon.steps.combine`: detectors combined per label), ``propagate`` (:mod:`~clinanon.steps.propagate`:
a name found once is found everywhere in the note), ``repair`` (:mod:`~clinanon.steps.repair`: what a trained model
gets wrong in any corpus), ``min_score`` and ``to_scheme`` (:mod:`~clinanon.steps.scheme`). Each is a
:class:`~clinanon.steps.base.Step`: ``process(analysis, spans) -> spans``.
"""

from clinanon.steps.base import Step, run_steps

__all__ = ["Step", "run_steps"]
