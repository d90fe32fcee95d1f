"""The review page in a real browser: Playwright (the Python package) driving Debian's Chromium.

The test setup installs the ``chromium`` package with apt when it is missing (Playwright's own browser download
cannot work here: no network but the package registries); it skips, saying why, only where apt cannot run (not
root, no apt-get). A person reviews one note by keyboard: accepts a span, rejects a false positive, moves a boundary,
changes a label, adds a missed name by selecting it, marks the note reviewed and saves; the BRAT output is checked.
Screenshots go to the test's tmp folder; ``CLINANON_UPDATE_SCREENSHOT=1`` (or a missing file) also copies one to
``docs/img/review.png`` for the README.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
playwright_sync = pytest.importorskip("playwright.sync_api")

from _browser import headless_chromium, live_server  # noqa: E402
from clinanon import io as cio  # noqa: E402
from clinanon.document import Document, Span  # noqa: E402
from clinanon.pipeline import Pipeline  # noqa: E402
from clinanon.service.app import create_app  # noqa: E402
from clinanon.service.review import ReviewStore  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "browser-token-42"

TEXT = ("Paciente: Ana Pérez. Acompañada por su hermano Tomás Ruiz.\n"
        "Ingreso el 3 de marzo de 2020 en el Hospital Clínico de Valencia por disnea.\n"
        "Antecedentes: Parkinson. Control por el Dr. Luis Gil.")


def _find(text: str, needle: str) -> tuple[int, int]:
    i = text.index(needle)
    return i, i + len(needle)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ReviewStore]]:
    tmp = tmp_path_factory.mktemp("review")
    cfg = tmp / "clinanon.toml"
    cfg.write_text('language = "es"\n\n[allow]\nwords = []\n', encoding="utf-8")
    # the input's own spans are the predictions (as written by `clinanon detect`): a fixed starting point with a
    # true positive, a false positive, a boundary off by one and a date; "Tomás Ruiz" is missed
    spans = [Span(*_find(TEXT, "Ana Pérez."), "NAME.PATIENT", "rules", 0.9),
             Span(*_find(TEXT, "Acompañada"), "NAME.PATIENT", "crf", 0.55),
             Span(*_find(TEXT, "3 de marzo de 2020"), "DATE", "crf", 0.99),
             Span(*_find(TEXT, "Hospital Clínico de Valencia"), "LOCATION.HOSPITAL", "rules", 0.95),
             Span(*_find(TEXT, "Luis Gil"), "NAME.PATIENT", "propagate", 0.8)]
    docs = [Document("nota-1", TEXT, tuple(spans), {"lang": "es"}),
            Document("nota-2", "Control de Ana Pérez sin incidencias.", (), {"lang": "es"})]
    nlp = Pipeline.from_config(cfg, detectors={"use": ["rules"]})
    store = ReviewStore(docs, out_dir=tmp / "out", config_path=cfg, pipeline=nlp, reviewer="browser-test")
    app = create_app(token=TOKEN, pipeline=nlp, review=store, warmup=False)
    with live_server(app) as url:
        yield url, store


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with headless_chromium(playwright_sync) as b:
        yield b


def test_review_a_note_by_keyboard_add_a_missed_name_and_save_brat(server: tuple[str, ReviewStore], browser: object,
                                                                   tmp_path: Path) -> None:
    url, store = server
    page = browser.new_page(viewport={"width": 1400, "height": 800})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url}"))

    # no token: refused; the login link sets the cookie
    assert page.goto(f"{url}/review").status == 401
    page.goto(f"{url}/review/login?token={TOKEN}")
    assert page.url.endswith("/review")
    assert page.locator("table.docs tbody tr").count() == 2
    page.screenshot(path=str(tmp_path / "list.png"))
    page.click("text=nota-1")
    page.wait_for_selector("#text mark")
    # the page is rendered by the server and its script runs after: a key pressed before the script has attached
    # its handler is lost; the script's first request fills the preview, so wait for that
    page.wait_for_function("document.getElementById('preview-text').textContent.length > 0")

    def span_row(n: int):
        return page.locator(f'#spans tr[data-id="{n}"]')

    def wait_status(n: int, status: str) -> None:
        page.wait_for_selector(f'#spans tr[data-id="{n}"].st-{status}')

    # j selects the first span (Ana Pérez., from the rules): its end is one past the name -> '{' moves it back
    page.keyboard.press("j")
    page.wait_for_selector('#spans tr[data-id="1"].current')  # the key is handled asynchronously: wait, then check
    assert "current" in (span_row(1).get_attribute("class") or "")
    page.keyboard.press("{")
    page.wait_for_selector(f'mark#span-1[data-end="{_find(TEXT, "Ana Pérez")[1]}"]')
    # j: the false positive "Acompañada" -> x rejects it (each key is handled asynchronously: wait for the
    # selection to move before the next key, or a loaded machine applies "x" to the span before)
    page.keyboard.press("j")
    page.wait_for_selector('#spans tr[data-id="2"].current')
    page.keyboard.press("x")
    wait_status(2, "rejected")
    # j: the date -> a accepts it
    page.keyboard.press("j")
    page.wait_for_selector('#spans tr[data-id="3"].current')
    page.keyboard.press("a")
    wait_status(3, "accepted")
    # "Luis Gil" is a doctor: select it, l focuses the label list, the keyboard picks NAME.DOCTOR
    page.click("mark#span-5")
    page.keyboard.press("l")
    assert page.evaluate("document.activeElement.id") == "label-select"
    options = page.eval_on_selector_all("#label-select option", "els => els.map(e => e.value)")
    steps = options.index("NAME.DOCTOR") - options.index("NAME.PATIENT")
    for _ in range(abs(steps)):
        page.keyboard.press("ArrowDown" if steps > 0 else "ArrowUp")
    page.keyboard.press("Escape")
    page.wait_for_selector('#spans tr[data-id="5"] td.label:text-is("NAME.DOCTOR")')
    # the missed "Tomás Ruiz": select it with the mouse, choose the label, n adds it
    page.select_option("#label-select", "NAME.RELATIVE")
    start, end = _find(TEXT, "Tomás Ruiz")
    page.evaluate("""([start, end]) => {
        const el = document.getElementById('text');
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        let pos = 0, node, range = document.createRange();
        while ((node = walker.nextNode())) {
            const n = node.textContent.length;
            if (pos <= start && start < pos + n) range.setStart(node, start - pos);
            if (pos < end && end <= pos + n) range.setEnd(node, end - pos);
            pos += n;
        }
        const sel = window.getSelection(); sel.removeAllRanges(); sel.addRange(range);
    }""", [start, end])
    page.locator("body").press("n")
    page.wait_for_selector(f'#text mark[data-start="{start}"][data-end="{end}"].src-review')
    # the preview shows the chosen operator's output without the added name
    page.wait_for_function("!document.getElementById('preview-text').textContent.includes('Tomás')"
                           " && document.getElementById('preview-text').textContent.includes('[NAME]')")
    page.select_option("#operator-select", "redact")
    page.wait_for_function("!document.getElementById('preview-text').textContent.includes('[NAME]')")
    shot = tmp_path / "review.png"
    page.screenshot(path=str(shot), full_page=True)
    # m marks the note reviewed, s saves BRAT
    page.keyboard.press("m")
    page.wait_for_selector("#doc-status:text-is('reviewed')")
    page.keyboard.press("s")
    page.wait_for_selector("#flash.show:has-text('saved')")
    assert not errors, errors

    [doc] = [d for d in cio.read(store.out_dir / "brat", "brat") if d.id == "nota-1"]
    got = {(doc.text[s.start:s.end], s.label) for s in doc.spans}
    assert got == {("Ana Pérez", "NAME.PATIENT"), ("Tomás Ruiz", "NAME.RELATIVE"), ("3 de marzo de 2020", "DATE"),
                   ("Hospital Clínico de Valencia", "LOCATION.HOSPITAL"), ("Luis Gil", "NAME.DOCTOR")}
    actions = [e["action"] for e in store.log_entries()]
    assert actions[:6] == ["adjust", "reject", "accept", "relabel", "add", "reviewed"] and actions[-1] == "save"
    log = store.log_path.read_text(encoding="utf-8")
    assert "Tomás" not in log and "Ana" not in log

    target = ROOT / "docs" / "img" / "review.png"
    if os.environ.get("CLINANON_UPDATE_SCREENSHOT") == "1" or not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, target)
    page.close()
