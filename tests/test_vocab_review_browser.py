"""The vocabulary review page in a real browser: Playwright (the Python package) driving Debian's Chromium, installed
with apt when missing, as ``tests/test_review_browser.py`` does (skipping the same way where apt cannot run).

A person reviews the fill-mask probe's tokens by keyboard: two accepted as names, one rejected, a mistake undone;
saved; the CSV is checked, and ``clinanon lm scrub-vocab``'s reader takes exactly the two accepted tokens from it.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
playwright_sync = pytest.importorskip("playwright.sync_api")

from _browser import headless_chromium, live_server  # noqa: E402
from clinanon.audit.probe import Prediction, ProbeResult  # noqa: E402
from clinanon.config import Config  # noqa: E402
from clinanon.lm.scrub import tokens_from_review  # noqa: E402
from clinanon.pipeline import Pipeline  # noqa: E402
from clinanon.service.app import create_app  # noqa: E402
from clinanon.service.vocab_review import VocabReviewStore  # noqa: E402

TOKEN = "vocab-browser-token-9"


def _pred(sentence: int, rank: int, token: str, name_like: bool) -> Prediction:
    return Prediction(sentence, 0, rank, token, 0.5 / rank, token[:1].isupper(), name_like, False, False, name_like,
                      False)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, VocabReviewStore]]:
    tmp = tmp_path_factory.mktemp("vocab")
    res = ProbeResult(2, 3)
    # name-like first on the page: García (2 predictions), Lotte; then by best rank: paciente, Ruiz (in no list), el
    res.predictions = [_pred(0, 1, "García", True), _pred(0, 2, "paciente", False), _pred(0, 3, "Ruiz", False),
                       _pred(1, 1, "García", True), _pred(1, 2, "Lotte", True), _pred(1, 3, "el", False)]
    res.write_review(tmp / "review.csv", ["Paciente <mask> ingresa.", "Control por el Dr. <mask>."])
    store = VocabReviewStore(tmp / "review.csv", reviewer="browser-test")
    app = create_app(token=TOKEN, pipeline=Pipeline(Config()), warmup=False, vocab_review=store)
    with live_server(app) as url:
        yield url, store


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with headless_chromium(playwright_sync) as b:
        yield b


def test_review_tokens_by_keyboard_and_save_the_csv(server: tuple[str, VocabReviewStore], browser: object,
                                                    tmp_path: Path) -> None:
    url, store = server
    page = browser.new_page(viewport={"width": 1300, "height": 700})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))

    assert page.goto(f"{url}/review/vocab").status == 401
    page.goto(f"{url}/review/vocab/login?token={TOKEN}")
    assert page.url.endswith("/review/vocab")
    order = page.eval_on_selector_all("#tokens tbody tr td.token code", "els => els.map(e => e.textContent)")
    assert order == ["García", "Lotte", "paciente", "Ruiz", "el"]
    ids = {t: int(page.locator(f'#tokens tbody tr:has(code:text-is("{t}"))').get_attribute("data-id") or 0)
           for t in order}

    def decided(token: str, decision: str) -> None:
        page.wait_for_selector(f'#tokens tr[data-id="{ids[token]}"].dec-{decision}')

    page.keyboard.press("j")  # García
    page.wait_for_selector(f'#tokens tr[data-id="{ids["García"]}"].current')  # keys are handled asynchronously
    assert "current" in (page.locator(f'#tokens tr[data-id="{ids["García"]}"]').get_attribute("class") or "")
    page.keyboard.press("a")  # a name; the selection moves on to Lotte
    decided("García", "name")
    page.keyboard.press("r")  # Lotte: say "keep" by mistake ...
    decided("Lotte", "keep")
    page.keyboard.press("u")  # ... undo: Lotte undecided and selected again
    page.wait_for_selector(f'#tokens tr[data-id="{ids["Lotte"]}"].dec-none.current')
    page.keyboard.press("a")  # Lotte: a name
    decided("Lotte", "name")
    page.keyboard.press("r")  # paciente: not a name
    decided("paciente", "keep")
    page.keyboard.press("k")  # back to paciente, then ↓ to Ruiz, left undecided
    page.wait_for_selector(f'#tokens tr[data-id="{ids["paciente"]}"].current')
    page.keyboard.press("ArrowDown")
    page.wait_for_selector(f'#tokens tr[data-id="{ids["Ruiz"]}"].current.dec-none')
    page.wait_for_selector("#progress:has-text('3 of 5 tokens decided · 2 names · 1 kept')")
    # the filter: undecided hides the decided ones
    page.keyboard.press("1")
    assert page.locator("#tokens tbody tr:not(.hidden)").count() == 2
    page.screenshot(path=str(tmp_path / "vocab.png"), full_page=True)
    page.keyboard.press("3")
    page.keyboard.press("s")
    page.wait_for_selector("#flash.show:has-text('saved')")
    assert not errors, errors

    with store.out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["prediction"], r["manual_verdict"]) for r in rows] == [
        ("García", "name"), ("paciente", "keep"), ("Ruiz", ""), ("García", "name"), ("Lotte", "name"), ("el", "")]
    assert tokens_from_review(store.out) == ({"garcia", "lotte"}, "manual")
    actions = [(e["action"], e.get("after")) for e in store.log_entries()]
    assert actions == [("open", None), ("decide", "name"), ("decide", "keep"), ("undo", None), ("decide", "name"),
                       ("decide", "keep"), ("save", None)]
    log = store.log_path.read_text(encoding="utf-8")
    assert "García" not in log and "Lotte" not in log and "Paciente" not in log
    page.close()
