"""Transform: operators that replace PHI spans, and the engine that applies them per category.

>>> from clinanon import Document, Span
>>> from clinanon.transform import Anonymizer
>>> anon = Anonymizer({"NAME": {"operator": "tag", "template": "<PERSON>"}, "*": {"operator": "redact"}})
>>> out = anon.anonymize(Document("d1", "Ana vino el 3/4.", (Span(0, 3, "NAME.PATIENT"), Span(12, 15, "DATE"))))
>>> out.text
'<PERSON> vino el XXXX.'

Operators (``list_operators()``): ``redact``, ``tag``, ``suppress``, ``keep``; new ones register themselves with
``@register_operator(name)`` and need no engine change (see :mod:`clinanon.transform.base`).
"""

from clinanon.transform.base import (
    BatchOperator,
    Edit,
    Operator,
    OperatorBase,
    OperatorContext,
    get_operator,
    list_operators,
    operator_from_config,
    register_operator,
)
from clinanon.transform.engine import (
    DEFAULT_KEY,
    Anonymizer,
    anonymize,
    anonymize_many,
    build_operators,
    select_operator,
)
from clinanon.transform.keep import KeepOperator
from clinanon.transform.redact import RedactOperator
from clinanon.transform.suppress import SuppressOperator
from clinanon.transform.tag import TagOperator

__all__ = [
    "DEFAULT_KEY",
    "Anonymizer",
    "BatchOperator",
    "Edit",
    "KeepOperator",
    "Operator",
    "OperatorBase",
    "OperatorContext",
    "RedactOperator",
    "SuppressOperator",
    "TagOperator",
    "anonymize",
    "anonymize_many",
    "build_operators",
    "get_operator",
    "list_operators",
    "operator_from_config",
    "register_operator",
    "select_operator",
]
