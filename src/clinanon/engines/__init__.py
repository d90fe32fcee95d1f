"""Back-ends that run a :class:`~clinanon.pipeline.Pipeline` over a corpus: :mod:`clinanon.engines.local` (worker
processes on one machine). Entry-point layer: they may import everything below; nothing imports them."""
