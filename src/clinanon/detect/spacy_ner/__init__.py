"""A spaCy NER detector: train a blank pipeline on clinanon tokens, or run any installed spaCy pipeline.

>>> det = SpacyNERDetector(lang="es", label_scheme="meddocan", seed=0, max_steps=2000)   # doctest: +SKIP
>>> det.fit(train_docs, dev_docs)          # spaCy's own training loop (spacy.training.loop.train)  # doctest: +SKIP
>>> det.detect(doc)                        # [Span(start, end, "FECHAS", "spacy", 1.0), ...]        # doctest: +SKIP
>>> det.save("models/spacy-meddocan"); SpacyNERDetector.load("models/spacy-meddocan")              # doctest: +SKIP
>>> SpacyNERDetector.load("es_core_news_sm", label_scheme="ontonotes", canonical=True)            # doctest: +SKIP

Training
--------
* The pipeline is built from a spaCy config: by default spaCy's ``init config`` preset for ``ner`` optimised for
  CPU efficiency (``tok2vec`` = MultiHashEmbed + MaxoutWindowEncoder CNN, transition-based ``ner``), or a config
  file (``configs/spacy_ner_meddocan.cfg``). Whatever the file says, :func:`build_config` puts in: the
  tokenizer ``clinanon.Tokenizer.v1`` (:class:`ClinanonTokenizer`, :func:`clinanon.text.tokenize`'s tokens,
  which align with MEDDOCAN's annotations; spaCy's default Spanish tokenizer misaligns 8.7 % of the gold spans;
  ``tokenizer="spacy"`` keeps spaCy's as a baseline), the NER scorer ``clinanon.ner_scorer.v1`` (spaCy's
  token-level scores plus ours on character offsets), the training logger ``clinanon.TrainLogger.v1`` and the
  ``before_update`` callback ``clinanon.TrackEpochs.v1`` (progress), score weights in which our F1 decides, and
  the caller's seed (``[system] seed`` and ``[training] seed``).
* Documents become a spaCy ``DocBin`` in a temporary folder (deleted afterwards). A gold span whose start or end
  is not a token boundary is *expanded* to the tokens it overlaps (as :func:`clinanon.bio.encode_bio` does) and
  reported; a span that overlaps a longer one is left out and reported; neither is lost silently
  (:class:`SpacyTrainingReport`, offsets and labels only).
* spaCy's own loop (:func:`spacy.training.loop.train`) trains the model, on one CPU process. Every
  ``eval_frequency`` steps it scores the dev data twice: spaCy's ``ents_f`` (on its tokens, against the gold as
  the tokens could encode it) and ours (``clinanon_ents_f``: exact ``(start, end, label)`` on the character
  offsets of the original gold spans = MEDDOCAN subtask 1; ``clinanon_spans_f``: subtask 2). The two agree only
  when every gold span aligns with a token; ours is the one that counts, and it is the ``score`` spaCy uses to
  pick its best checkpoint.
* ``keep="last"`` (default) keeps the weights after the last step, so the dev data never chooses the model and
  dev scores are honest; ``keep="best"`` keeps spaCy's best checkpoint by our dev score (dev-selected).
* The same data, config and seed give the same weights and the same predictions (checked by the tests, one
  process). The weight files are byte-identical once both pipelines have predicted (spaCy saves the ``ner``
  model's dropout attribute, which the first prediction sets to 0; ``clinanon train`` always predicts dev
  before saving); ``meta.json`` differs (timings).

Prediction
----------
Spans carry the pipeline's native labels (MEDDOCAN labels for a MEDDOCAN model; ``PERSON``/``GPE``/``ORG``... for
an OntoNotes pipeline; ``PER``/``LOC``/``ORG``/``MISC`` for a WikiNER one), ``source="spacy"`` and score 1.0. A
``label_scheme`` maps them to canonical categories (``canonical=True``); labels the scheme does not know are
dropped and counted in :attr:`SpacyNERDetector.unmapped`. For the ``ontonotes`` scheme only the labels that can
identify a person are kept by default (:data:`ONTONOTES_PHI_LABELS`: PERSON, PER, GPE, LOC, ORG, DATE) -- the
way a published Dutch clinical language model's pretraining corpus was anonymized with a Dutch spaCy model.
Texts longer than ``max_chars`` are cut at line breaks (or whitespace) and the spans shifted back.

Saved pipelines reload with ``spacy.load(model_dir)`` once this package is imported (it registers the tokenizer,
scorer, logger and callback in spaCy's registry; the ``spacy_*`` entry points of pyproject.toml let spaCy import
it by itself). A fitted detector pickles (through spaCy's serialization).

Modules: :mod:`.tokenizer` (``clinanon.Tokenizer.v1``), :mod:`.scoring` (``clinanon.ner_scorer.v1``),
:mod:`.train_log` (``clinanon.TrainLogger.v1``, ``clinanon.TrackEpochs.v1``, the evaluation records),
:mod:`.config` (training configs), :mod:`.training` (the training run and its report), :mod:`.detector`
(:class:`SpacyNERDetector`).
"""

from __future__ import annotations

from clinanon.detect.spacy_ner.config import SCORE_WEIGHTS, Tokenizer, build_config, default_config
from clinanon.detect.spacy_ner.detector import ONTONOTES_PHI_LABELS, SpacyNERDetector
from clinanon.detect.spacy_ner.scoring import GOLD_KEY, SCORER_NAME, make_clinanon_ner_scorer
from clinanon.detect.spacy_ner.tokenizer import TOKENIZER_NAME, ClinanonTokenizer, create_tokenizer
from clinanon.detect.spacy_ner.train_log import (
    LOGGER_NAME,
    STEP_CALLBACK_NAME,
    EvalRecord,
    create_epoch_tracker,
    create_train_logger,
)
from clinanon.detect.spacy_ner.training import Keep, SpacyTrainingReport

__all__ = [
    "GOLD_KEY",
    "LOGGER_NAME",
    "ONTONOTES_PHI_LABELS",
    "SCORER_NAME",
    "SCORE_WEIGHTS",
    "STEP_CALLBACK_NAME",
    "TOKENIZER_NAME",
    "ClinanonTokenizer",
    "EvalRecord",
    "Keep",
    "SpacyNERDetector",
    "SpacyTrainingReport",
    "Tokenizer",
    "build_config",
    "create_epoch_tracker",
    "create_tokenizer",
    "create_train_logger",
    "default_config",
    "make_clinanon_ner_scorer",
]
