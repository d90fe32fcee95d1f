"""English nursing notes, fourth round: names after "dr" that are also words, roles in brackets, holidays and
ordinal days, pager numbers with a dash, hospital acronyms, saints' hospitals, care homes, cities that are people's
names, lists of month/day dates, and the surrogates of the new date forms.

Every text here is written for the test (no string comes from a corpus)."""

from __future__ import annotations

import pytest

from _rules import found as _found
from _rules import rules_pipeline
from clinanon.document import Document
from clinanon.pipeline import Pipeline
from clinanon.transform.surrogate.dates import surrogate_date
from clinanon.transform.surrogate.keys import SurrogateKey
from clinanon.transform.surrogate.scope import GenContext


@pytest.fixture(scope="module")
def nlp() -> Pipeline:
    return rules_pipeline("en")


def _texts(nlp: Pipeline, text: str) -> list[str]:
    return [t for t, _ in _found(nlp, text)]


@pytest.mark.parametrize(("text", "name"), [
    ("bp soft while on neo per dr. chung, will titrate", "chung"),  # a surname that is also a word elsewhere
    ("AND DR. MAHN HAS SPOKEN WITH THE FAMILY", "MAHN"),
    ("MD (Dr. Fitzwilliam) notified of BP 80/40.", "Fitzwilliam"),  # a bracket after the name; also a town
    ("Seen today by Dr. van der Berg from renal.", "van der Berg"),  # particles lead the surname
    ("Dr. Le in to see pt", "Le"),  # a surname that is a particle elsewhere
    ("Drs' Ballou and Dutter in to see pt.", "Dutter"),
    ("daughter \"sarah\" at bedside", "sarah"),
    ("CT GUIDED TAP DISCUSSED...PIETRO CUCCHIARELLI (RESIDENT) WORKING ON IT.", "PIETRO CUCCHIARELLI"),
    ("Case discussed with Pat Okafor (NP).", "Pat Okafor"),
])
def test_names_after_titles_and_before_roles(nlp: Pipeline, text: str, name: str) -> None:
    assert name in _texts(nlp, text)


@pytest.mark.parametrize("text", ["DR AWARE OF BP 80/40", "dr. in to see pt", "dr. paged re: low uo", "DR. HERE",
                                  "dr. team aware of plan", "BP LOW (MD) AWARE", "DISCUSSED WITH TEAM (RESIDENT)"])
def test_words_after_titles_are_not_names(nlp: Pipeline, text: str) -> None:
    assert [t for t, lab in _found(nlp, text) if lab.startswith("NAME")] == []


@pytest.mark.parametrize(("text", "date"), [
    ("Family meeting planned for after Thanksgiving.", "Thanksgiving"),
    ("Admitted on Christmas Day with SOB.", "Christmas Day"),
    ("returned on New Year's Eve", "New Year's Eve"),
    ("seen in clinic on the 14th and started on coumadin", "14th"),
    ("son visiting until the 20th.", "20th"),
    ("no BM since the 2nd, lactulose given", "2nd"),
    ("Admitted 10/19/ with CP.", "10/19"),
    ("Last BM 10/18pm.", "10/18"),
    ("Cultures 10/12, 10/14 and 10/16 neg.", "10/14"),
    ("Cultures 10/12, 10/14 and 10/16 neg.", "10/12"),
])
def test_date_forms(nlp: Pipeline, text: str, date: str) -> None:
    assert date in _texts(nlp, text)


@pytest.mark.parametrize("text", ["on the 3rd day of abx", "transferred to the 4th floor", "the 2nd dose given",
                                  "Easter lily in the room"])
def test_ordinals_and_holiday_words_that_are_no_dates(nlp: Pipeline, text: str) -> None:
    assert [t for t, lab in _found(nlp, text) if lab == "DATE" and t != "Easter"] == []


@pytest.mark.parametrize(("text", "number"), [
    ("Please page the covering MD at pager #4-2217 with changes.", "4-2217"),
    ("page at 4-2217", "4-2217"),
    ("call x4-2217 with questions", "x4-2217"),
])
def test_internal_numbers_with_a_dash(nlp: Pipeline, text: str, number: str) -> None:
    assert number in _texts(nlp, text)


@pytest.mark.parametrize(("text", "place"), [
    ("BRINGING IN A CONSULT FROM THE GBMC.", "GBMC"),
    ("HE WOULD NEED TO LEAVE GH, HAVE SURGERY AND RETURN", "GH"),
    ("pt rec'd lasix enroute to gh er.", "gh"),
    ("Pt to go to cath lab at St. Elizabeth's in am.", "St. Elizabeth's"),
    ("Called the Lahey Clinic to get old records.", "Lahey Clinic"),  # not "Called the ..."
    ("He lives at Carpenter Assisted living with 24 hour care.", "Carpenter"),
    ("DAUGHTER FROM ROME JUST CALLED FOR AN UPDATE", "ROME"),  # a city that is also a name, after "from"
    ("Pt lives in Houston with son.", "Houston"),
    ("Pt admitted to MICU from Quartermain 3 for SOB", "Quartermain"),
])
def test_places(nlp: Pipeline, text: str, place: str) -> None:
    assert place in _texts(nlp, text)


@pytest.mark.parametrize("text", ["IN NORMAL SINUS RHYTHM", "went to bath with assist", "from the ECG today",
                                  "came from OR 2 at 1300"])
def test_place_lookalikes(nlp: Pipeline, text: str) -> None:
    assert [t for t, lab in _found(nlp, text) if lab.startswith("LOCATION")] == []


def test_new_date_forms_get_surrogates_not_themselves() -> None:
    ctx = GenContext.simple(SurrogateKey(b"k" * 32), lang="en")
    assert surrogate_date("Christmas", ctx) != "Christmas"
    assert surrogate_date("Christmas", ctx) == surrogate_date("Christmas", ctx)  # consistent
    day = surrogate_date("14th", ctx)
    assert day != "14th" and day[:-2].isdigit() and day[-2:] in ("st", "nd", "rd", "th")
    year = surrogate_date("98", ctx)
    assert year != "98" and len(year) == 2 and year.isdigit()
    assert surrogate_date("Sunday", ctx) == "Sunday"  # a weekday alone is no holiday


@pytest.mark.parametrize(("text", "found"), [
    ("possible plan to extubate tomorrow. s. roberto rrt\n", "s. roberto"),  # a signature after the last sentence
    ("prostate CA'88, GERD", "88"),  # a two-digit year glued to an abbreviation
])
def test_signatures_and_glued_years(nlp: Pipeline, text: str, found: str) -> None:
    assert found in _texts(nlp, text)


@pytest.mark.parametrize("text", ["RESP: O2 WEANED TO 4L NP GOOD BREATH SOUNDS", "INTEG: Stoma RN following",
                                  "PENROSE DRAIN IN PLACE.", "NPO FOR PEJ PLACEMENT", "walked 50' x2 with PT"])
def test_clinical_words_that_look_like_phi(nlp: Pipeline, text: str) -> None:
    assert _found(nlp, text) == []


def test_tag_keeps_leading_kinship_words_outside_the_tag() -> None:
    from clinanon.transform.base import OperatorContext
    from clinanon.transform.tag import TagOperator

    text = "Acude con su marido Julián a la consulta."
    span_start = text.index("su marido")
    from clinanon.document import Span

    span = Span(span_start, text.index(" a la"), "NAME.RELATIVE", "test", 1.0)
    op = TagOperator()
    ctx = OperatorContext(doc=Document(id="k", text=text), category="NAME.RELATIVE", lang="es")
    edit = op.edit(span, ctx)
    assert (edit.start, edit.end) == (span.start, span.end)
    assert edit.text.startswith("su marido ") and "Julián" not in edit.text
    hija = Span(text.index("marido"), text.index("marido") + 6, "NAME.RELATIVE", "test", 1.0)
    assert "marido" not in op.edit(hija, ctx).text  # a kinship word alone is replaced as the span says
