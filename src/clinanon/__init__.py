"""clinanon: de-identification of clinical free text.

Every component speaks in character offsets on the original text (see ``clinanon.document``).
"""

from clinanon.document import Document, Replacement, SanitizedDocument, Span

__version__ = "0.1.0"

__all__ = ["Document", "Replacement", "SanitizedDocument", "Span", "__version__"]
