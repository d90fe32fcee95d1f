"""English clinical notes (nursing notes, discharge summaries, letters): the rules for dates without a year, names
in any case after titles and kinship words, signatures, care sites, pagers, and the false positives of such notes.

Every text here is written for the test (no string comes from a corpus)."""

from __future__ import annotations

import time

import pytest

from clinanon.detect.allowlist import AllowList
from clinanon.detect.rules import care_sites, contacts, dates, names, organizations
from clinanon.detect.rules.detector import FAMILIES, RulesDetector


def _found(module: object, text: str, lang: str = "en") -> list[tuple[str, str]]:
    return [(text[s.start:s.end], s.label) for r in module.recognizers(lang)  # type: ignore[attr-defined]
            for s in r.analyze(text)]


def _texts(module: object, text: str) -> list[str]:
    return [t for t, _ in _found(module, text)]


# --- dates: month/day without a year ----------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "date"), [
    ("Plan to extubate on 10/19 if ABG ok.", "10/19"),
    ("as of today 4/16 pt is afebrile", "4/16"),
    ("admitted 3/12 with chest pain", "3/12"),
    ("PICC placed 11/2.", "11/2"),
    ("last BM 7/30", "7/30"),
    ("CABG 6/16 . post op course", "6/16"),
    ("pt was d/c'd 5/3 from rehab", "5/3"),
    ("cultured at 2am 8/25 for fever", "8/25"),
    ("family meeting Friday 10/7.", "10/7"),
    ("9/14 CARDIAC CATH: LVEF 60%", "9/14"),
    ("intubated 6/30-7/2 for CHF", "6/30-7/2"),
    ("PMH: MI '98, HTN", "98"),
    ("s/p CABG 1/98 and PTCA", "1/98"),
    ("pt's birthday is may 16, 2015.", "may 16, 2015"),
])
def test_month_day_dates(text: str, date: str) -> None:
    assert date in _texts(dates, text)


@pytest.mark.parametrize("text", [
    "BP 120/80, HR 88",
    "2/4 pulses bilaterally",
    "took 1/2 tab of oxycodone",
    "GCS 3/15 on arrival",
    "family available 24/7",
    "weaned to PS 10/5 this am",
    "on CPAP 5/5 with FiO2 40%",
    "PEEP/PS 5/8, RR 20",
    "c/o pain 8/10 in the incision",
    "chest pain (7/10) relieved with NTG",
    "incisional pain #9/10",
    "6/10 cp after walking",
    "gram negative rods in 2/4 bottles",
    "D5 1/2 NS at 100cc/hr",
    "received 1 1/2 amps of calcium",
    "strength 4/5 in the left arm",
    "3/6 SEM at the apex",
    "PS 16/5/40% overnight",
    "7.45/33/80 on the last ABG",
])
def test_month_day_lookalikes_are_not_dates(text: str) -> None:
    assert _texts(dates, text) == []


@pytest.mark.parametrize("text", ["CK due at 1015 and 1815 today", "tylenol given at 8am and 1800",
                                  "arrived to CCU ~ 1930, intubated", "c/o headache around 2000"])
def test_clock_times_written_as_four_digits_are_not_years(text: str) -> None:
    assert [t for t in _texts(dates, text) if t.isdigit()] == []


@pytest.mark.parametrize("text", ["chest ache since 2006", "lung ca s/p resection 1977", "born in 1931"])
def test_years_with_an_event_or_a_date_word(text: str) -> None:
    assert any(t.isdigit() and len(t) == 4 for t in _texts(dates, text))


# --- names in any case --------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "name", "label"), [
    ("bleeding noted, dr. murray aware.", "murray", "NAME.DOCTOR"),
    ("dr cronin had already ordered prbc", "cronin", "NAME.DOCTOR"),
    ("discussed w DR. HALVORSEN, will re-eval", "HALVORSEN", "NAME.DOCTOR"),
    ("psych nurse leslie brennan saw pt", "leslie brennan", "NAME.DOCTOR"),
    ("son jonathan called this am", "jonathan", "NAME.RELATIVE"),
    ("wife mary at bedside", "mary", "NAME.RELATIVE"),
    ("wife, rose, left her number", "rose", "NAME.RELATIVE"),
    ("lives with daughter pat in town", "pat", "NAME.RELATIVE"),
    ("visited by significant other charlie today", "charlie", "NAME.RELATIVE"),
    ("SON ROBERT UPDATED BY PHONE", "ROBERT", "NAME.RELATIVE"),
    ("per d ross, pacing wires secured", "d ross", "NAME"),
    ("mr.whitaker returned from the OR", "whitaker", "NAME"),
])
def test_names_after_titles_roles_and_kinship_words(text: str, name: str, label: str) -> None:
    assert (name, label) in _found(names, text)


@pytest.mark.parametrize("text", [
    "dr aware. md notified. wife at bedside.",
    "son and daughter visited, daughter aware of plan",
    "daughter may visit, son will call",
    "pt fed today and ate well",
    "on ms contin for pain",
    "RT HAND SWOLLEN",
    "power of attorney (good only with a note)",
    "DAUGHTER IS AT THE BEDSIDE",
])
def test_role_words_without_a_name(text: str) -> None:
    assert not [t for t, _ in _found(names, text) if t.casefold() not in ("mrs", "mr")]


@pytest.mark.parametrize(("text", "name"), [
    ("plan discussed.\n\nirene snell, rn\n", "irene snell"),
    ("stable night.\n  Jane Doe, RN\n", "Jane Doe"),
    ("no changes.\nmaria l. gomez bsn/rn\n", "maria l. gomez"),
])
def test_signatures(text: str, name: str) -> None:
    assert name in _texts(names, text)


def test_name_before_aware() -> None:
    text = "pulses by doppler. grace dudak aware. cap refill < 3 sec"
    assert "grace dudak" in _texts(names, text)
    assert _texts(names, "pt and family aware of plan.") == []


@pytest.mark.parametrize("text", ["HR 90-110'S. SBP 110-140'S.", "secondary to N/V. BP stable",
                                  "on 2l N/C. RR 16-21", "UPPER 30'S TO 40'S. AMBUED"])
def test_initials_after_apostrophes_and_slashes_are_not_names(text: str) -> None:
    assert _texts(names, text) == []


def test_initial_and_surname_still_found() -> None:
    assert "J. Smith" in _texts(names, "Seen by J. Smith in clinic.")


# --- allow-list: common words where capitals say nothing ----------------------------------------------------------

def test_common_words_at_line_start_or_in_capitals_are_not_names() -> None:
    det = RulesDetector("en")
    text = "GU: Good u/o.\nEndo: QID FS.\nPleasant and cooperative.\nAline intact L radial."
    spans = det.analyze(text)
    words = {text[s.start:s.end] for s in spans if s.label.startswith("NAME")}
    assert not words & {"Good", "Endo", "Pleasant", "Aline"}
    allow = AllowList("en")
    assert allow.is_allowed("BRADY") and not allow.is_allowed("Brady")


# --- care sites -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "site"), [
    ("plan: transfer to wendover 2 today", "wendover"),
    ("INTUBATED ON WENDOVER 6 FOR RESP FAILURE", "WENDOVER"),
    ("He was med-flighted to GH and went to the cath lab.", "GH"),
    ("went to Fairhaven Hosp with abd pain", "Fairhaven"),
    ("family reports that at LINDEN MEMORIAL her skin was fine", "LINDEN MEMORIAL"),
    ("transferred from er ashcombe campus.", "ashcombe"),
    ("lives alone in marlow heights, daughter nearby", "marlow heights"),
])
def test_wards_hospitals_and_towns(text: str, site: str) -> None:
    assert site in _texts(care_sites, text)


@pytest.mark.parametrize("text", [
    "transferred to the floor", "to OR for CABG", "transferred to MICU", "went home today", "pt to go to rehab",
    "on 2 L NC", "on Lasix 40 bid", "sats to upper 90s", "changed to A paced 88", "Spec sent to BB on hold",
    "converted back to SR", "RR to mid 30's",
])
def test_generic_destinations_are_not_sites(text: str) -> None:
    assert _texts(care_sites, text) == []


def test_care_sites_are_english_only_and_registered() -> None:
    assert "care_sites" in FAMILIES
    assert care_sites.recognizers("es") == []


# --- contacts ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "number"), [
    ("Pager #41872", "41872"), ("Pager: #30217", "30217"), ("PG 52210", "52210"), ("beeper 555-1234", "555-1234"),
    ("call x4567 with questions", "x4567"), ("ext. 2234", "2234"), ("HOME-410 671-9309", "410 671-9309"),
])
def test_pagers_and_extensions(text: str, number: str) -> None:
    assert number in _texts(contacts, text)


@pytest.mark.parametrize("text", [
    "ABG on PS 5=7.35-39-142-22. BS coarse", "abg on 40% neb: 202-33-7.45-24-0.", "vent AC 14 x 700 40% +5 peep",
    "follows commands.at times confused", "tol po well.no n/v", "needed.Pt also given combivent",
])
def test_lab_values_and_glued_sentences_are_not_contacts(text: str) -> None:
    assert _texts(contacts, text) == []


def test_real_domains_still_found() -> None:
    assert _texts(contacts, "see example.com or bbc.co.uk") == ["example.com", "bbc.co.uk"]


# --- organizations ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["CONTINUE ANTIBX AS ORDERED.", "DIURESE AS NEEDED",
                                  "SOCIAL: SISTER & CHARLIE VISITED"])
def test_capitals_are_not_companies(text: str) -> None:
    assert _texts(organizations, text) == []


def test_legal_suffix_still_found() -> None:
    assert "Nordic Shipping AS" in _texts(organizations, "The invoice of Nordic Shipping AS came today.")


# --- linear time -----------------------------------------------------------------------------------------------------

_ADVERSARIAL = {
    "100k words": " ".join(["transfer", "to", "Wendover", "dr", "son", "aware", "Hosp", "lives", "in"][i % 9]
                           for i in range(100_000)),
    "1 MB line": ("dr. smith aware, son rob, 10/19 pager 1234 on quartermain 2 " * 20_000)[:1_000_000],
    "1 MB mixed-case line": ("Dr. Smith aware. Son Rob called 10/19 at 2pm, transfer to Wendover 2. "
                             * 15_000)[:1_000_000],
    "slashes": "1/" * 200_000,
    "apostrophes": "'1" * 200_000,
    "x digits": "x1" * 200_000,
    "lower words": ("abc " * 250_000),
    "university of": ("u of md med " * 100_000),
    "slash abbreviations": ("C/O C/V c/o " * 80_000),
}


@pytest.mark.parametrize("name", list(_ADVERSARIAL))
def test_adversarial_inputs_finish_quickly(name: str) -> None:
    text = _ADVERSARIAL[name]
    for module in (dates, names, care_sites, contacts):
        for r in module.recognizers("en"):  # type: ignore[attr-defined]
            t0 = time.process_time()  # CPU time: other processes on a shared machine do not count
            r.analyze(text)
            assert time.process_time() - t0 < 10.0, (name, getattr(r, "name", r))


# --- issue 16, second pass: all-caps notes, university hospitals, M/YY, slash abbreviations -------------------------

def _detected(text: str) -> list[tuple[str, str]]:
    """The rules detector's candidates (the caseless guard and merge included)."""
    from clinanon.document import Document

    return [(text[s.start:s.end], s.label) for s in RulesDetector("en").detect(Document(id="t", text=text))]


@pytest.mark.parametrize(("text", "date"), [
    ("Will follow patient 8/12 AM for pulmonary care.", "8/12"),  # not the clock time "12 AM"
    ("She was adm 9/7 am with acute sob.", "9/7"),
    ("RESULTS OF CULTURES FROM 8/31 PENDING.", "8/31"),  # a culture is dated: "from" wins over "cultures"
    ("BC and urine cx from 7/21 NGTD.", "7/21"),
    ("s/p pelvic fx 4/97, right arm fx 5/97", "5/97"),  # a month and a two-digit year
    ("PMH: OVARIAN CA (12/93) S/P DEBULKING", "12/93"),
])
def test_month_day_and_month_year_second_pass(text: str, date: str) -> None:
    assert date in _texts(dates, text)


@pytest.mark.parametrize(("text", "date"), [
    ("8/14 blood cx grew GPC in clusters", "8/14"),  # a culture sent that day (a count is "2/4 bottles")
    ("sputum cx 9/11 +gram neg rods", "9/11"),  # "+gram" is the result, not a grade ("2/4+")
    ("K 3.1, repleted, repeat 3/3 am", "3/3"),  # a morning: a day, whatever the pair's shape
])
def test_month_day_before_a_culture_a_result_or_a_morning(text: str, date: str) -> None:
    assert date in _texts(dates, text)


@pytest.mark.parametrize("text", ["1/2 blood cx positive", "cx 2/4 bottles pos", "pulses 2/4 +", "2/4+ pulses",
                                  "strength 5/5 pm"])
def test_culture_counts_and_grades_stay_out(text: str) -> None:
    assert not [t for t in _texts(dates, text) if "/" in t]


@pytest.mark.parametrize("text", ["ANA titer 1/80 positive", "pain 8/10 after 2 percocet", "on PS 5/5 overnight"])
def test_round_ratios_titres_and_settings_stay_out(text: str) -> None:
    assert not [t for t in _texts(dates, text) if "/" in t]


@pytest.mark.parametrize("text", [
    "PT IS ALERT. C/O INCISIONAL PAIN #9/10. DENIES CP.", "c/o inc pain x 1 med with percocet 2 tabs",
    "C/V ST WITH NITRO 4.5MCGS FOR HTN", "Neuro intact. C/o pain 5-9 out of 10.",
])
def test_slash_abbreviations_are_not_spanish_streets(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab.startswith("LOCATION")]


def test_spanish_street_type_still_a_street_in_english_text() -> None:
    assert ("C/ Mayor 5", "LOCATION.STREET") in _detected("Pt lives at C/ Mayor 5 in Madrid")


@pytest.mark.parametrize(("text", "name"), [
    ("LEFT RADIAL PULSE ABSENT. DR SULLIVAN MADE AWARE. PT RESTING IN BED.", "SULLIVAN"),
    ("NECK UNCHANGED THIS SHIFT. DR. GERTRUDE INTO SEE. PULSES PRESENT.", "GERTRUDE"),
])
def test_names_in_capitals_do_not_take_the_words_after_them(text: str, name: str) -> None:
    names_found = [t for t, lab in _detected(text) if lab.startswith("NAME")]
    assert name in names_found
    assert not [t for t in names_found if t != name and name in t]  # not "SULLIVAN MADE", "GERTRUDE INTO SEE"


@pytest.mark.parametrize("text", ["S. REMAINS INTUBATED AND SEDATED. O. SEE FLOWSHEET FOR VS.",
                                  "PT C/O TINGLING IN RT HAND. HAND SWOLLEN AND COOL. LT HAND WARM."])
def test_capitals_initials_and_rt_body_parts_are_not_names(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab.startswith("NAME")]


@pytest.mark.parametrize(("text", "site"), [
    ("PT TRANSFERRED TO GH FOR CATH. EKG REVEALED NEW CHANGES.", "GH"),  # an acronym in an all-caps note
    ("PT ADMITTED FROM UNIVERSITY OF MARYLAND WITH CP.", "UNIVERSITY OF MARYLAND"),
    # the name without its generic head, as the other care-site rules give it ("Harbor Hosp" -> "Harbor")
    ("Pt recieved from university of maryland hospital today.", "university of maryland"),
    ("PATIENT PRESENTED TO U OF MD MED CENTER WITH SOB.", "U OF MD"),
])
def test_hospitals_in_capitals_and_university_hospitals(text: str, site: str) -> None:
    assert any(site in t for t, lab in _detected(text) if lab.startswith("LOCATION"))


@pytest.mark.parametrize("text", [
    "WENT BACK TO AC OVERNIGHT. RETURNED TO NSR. TRANSFERRED TO CCU.", "the university of life",
    "pt has a u of o shaped wound",
])
def test_generic_capitals_and_phrases_are_not_sites(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab.startswith("LOCATION")]


@pytest.mark.parametrize("text", ["pcwp 11.CO/ci adequate.", "heparin=78.3.no changes made in drip."])
def test_glued_decimals_and_sentences_are_not_urls(text: str) -> None:
    assert _texts(contacts, text) == []


def test_urls_with_a_short_path_still_found() -> None:
    assert "example.com/abc" in _texts(contacts, "see example.com/abc for the leaflet")


# --- issue 16, English nursing notes, second pass (invented strings, none from the dev notes) ---------------------

@pytest.mark.parametrize(("text", "site"), [
    ("pt went to sacred heart hosp last week with cp", "sacred heart"),  # common words before a hospital head
    ("TRANSFERRED FROM NEW HAVEN MEDICAL CENTER FOR CABG", "NEW HAVEN"),
    ("admitted from st bernadette for cath", "st bernadette"),  # a saint's name after a movement cue
    ("She was seen at Good Shepherd Hospital in May.", "Good Shepherd"),  # capitalised words before "Hospital"
    ("family states he was at JHH for 2 weeks", "JHH"),  # a hospital acronym ending in H after a preposition
    ("PT TRANSFERRED TO LINDENHALL7 THIS AM", "LINDENHALL"),  # a ward's name glued to its number
])
def test_hospitals_of_common_words_acronyms_and_glued_wards(text: str, site: str) -> None:
    assert any(site in t for t, lab in _detected(text) if lab.startswith("LOCATION"))


@pytest.mark.parametrize("text", [
    "WENT TO ST ELEVATION IN V2-V4, CARDS AWARE.",  # "ST" is a rhythm segment, not a saint
    "went to new room on the floor", "PT IN USOH UNTIL 3 DAYS AGO.", "CT SHOWED SAH, ICH ALSO NOTED.",
    "WAS IN SAH AND IVH ON ARRIVAL",
])
def test_rhythms_bleeds_and_generic_words_are_not_sites(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab.startswith("LOCATION")]


@pytest.mark.parametrize(("text", "names"), [
    ("daughters abigail and henrietta in to visit", ("abigail", "henrietta")),  # a list after a plural kin word
    ("Drs Pemberton and Ostrowski aware of k 3.1", ("Pemberton", "Ostrowski")),
    ("spoke with margaret re: plan of care", ("margaret",)),  # a listed first name after a verb of talking
    ("updated harold by phone, questions answered", ("harold",)),
])
def test_names_in_lists_and_after_talking_verbs(text: str, names: tuple[str, ...]) -> None:
    found = [t for t, lab in _detected(text) if lab.startswith("NAME")]
    for n in names:
        assert any(n in t for t in found), n


@pytest.mark.parametrize("text", [
    "updated family at bedside", "called md re low u/o", "spoke with pt re pain control", "called code at 0300",
    "RESP: CS CLEAR, DOING WELL. U/O VERY GD >80CC/HR CLEAR YELLOW URINE.",  # HR is heart rate, not "Herr"
    "ABD SOFT, GOOD BS, HR 80S NSR, CLEAR LIQS TOL.",
])
def test_talking_verbs_without_names_and_heart_rate_are_not_names(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab.startswith("NAME")]


def test_signature_with_the_credential_on_the_next_line() -> None:
    found = _detected("plan: cont to monitor.\n  Theodora Quinlan\n  RN\n")
    assert any("Theodora Quinlan" in t for t, lab in found if lab.startswith("NAME"))


@pytest.mark.parametrize("text", ["RESP: trialed on 5/5 for 2 hrs, tolerated", "SBT 5/5 this am",
                                  "CPAP+PS 5/5 OVERNIGHT", "pt sprinted on 10/5 for 1 hr"])
def test_ventilator_trials_are_not_dates(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab == "DATE" and "/" in t]


def test_a_drug_weaned_off_on_a_date_is_a_date() -> None:
    assert any("9/7" in t for t, lab in _detected("IABP weaned off 9/7, PA line d/c'd.") if lab == "DATE")


@pytest.mark.parametrize(("text", "phone"), [("call wife at 617/555-0143 if changes", "617/555-0143"),
                                             ("dtr's cell (212)/555 0188", "(212)/555 0188")])
def test_phones_with_a_slash_after_the_area_code(text: str, phone: str) -> None:
    assert any(phone in t for t, lab in _detected(text) if lab.startswith("CONTACT"))


@pytest.mark.parametrize("text", ["ABG 7.35/410/555/1234", "ratio 300/200/1000", "BP 210/110 HR 120"])
def test_slashed_numbers_that_are_no_phones(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab.startswith("CONTACT")]


# --- issue 16, held-back check: score-shaped pairs, glued dates, shorthand, cue punctuation -------------------

@pytest.mark.parametrize("text", [
    "MAE, GRIPS EQUAL 5/5 BILAT.",          # strength with no date near it
    "NEW MURMUR, SOFT 2/6, NOTED.",         # a murmur grade after a comma
    "IVF CHANGED ON 1/2 NS OVERNIGHT.",     # a fraction after a weak cue ("on")
    "distal pulses 3/4 bilat, warm.",
])
def test_score_shaped_pairs_without_date_support_are_no_dates(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab == "DATE"]


@pytest.mark.parametrize(("text", "date"), [
    ("extubated 2/4, tolerating diet", "2/4"),                   # a strong cue: a date whatever its shape
    ("CXR 2/3 and 2/5: no change", "2/5"),                       # another date of the same weeks near it
    ("admitted 3/1 for CHF. Repeat echo 3/4 ordered.", "3/4"),   # corroborated by the admission date
    ("Blood cx 10/2 neg.", "10/2"),                              # a culture's date, not a bottle count
    ("PMH: hip fx4/97, HTN", "4/97"),                            # a month and year glued to an abbreviation
    ("Prior admission 1999, recovered.", "1999"),
])
def test_dates_of_nursing_notes(text: str, date: str) -> None:
    assert date in [t for t, lab in _detected(text) if lab == "DATE"]


@pytest.mark.parametrize("text", ["C/DIFF NEG X 3, RESENT 2 MORE", "C/SPINE CLEARED 4 VIEWS", "CC/HR 3 TIMES"])
def test_slash_shorthand_is_no_spanish_street(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab.startswith("LOCATION")]


def test_spanish_slash_street_still_found_in_english_text() -> None:
    assert [t for t, lab in _detected("lives at C/ Mayor 5 in Madrid") if lab == "LOCATION.STREET"]


@pytest.mark.parametrize("text", [
    "wife was made power of attorney. Legal work is in the chart.",  # a cue word ends a sentence
    "PMH of CAD, TR, MR , AI, EF 45%",                                # "MR" is mitral regurgitation here
    "sat 95% on 4l np. Instructed on incentive spirometer.",         # "np": nasal prongs, then a sentence
])
def test_cue_words_before_punctuation_are_no_name_cues(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab.startswith("NAME")]


@pytest.mark.parametrize(("text", "name"), [
    ("MICU resident, Aaltonen, aware of labs.", "Aaltonen"),   # a comma after a role: a listed name only
    ("HO AALTONEN AWARE OF K 3.2.", "AALTONEN"),               # house officer
    ("REVERSALS NOT GIVEN PER K. ABRAMS PA.", "K. ABRAMS"),    # the initial "K." is kept
    ("pt resting.\nj. kowalski rn", "j. kowalski"),            # a Census surname in a lower-case signature
])
def test_staff_names_of_nursing_notes(text: str, name: str) -> None:
    assert any(name in t for t, lab in _detected(text) if lab.startswith("NAME"))


@pytest.mark.parametrize(("text", "name"), [
    ("DR CHRISTENSEN IN TO SEE PT.", "CHRISTENSEN"),
    ("weaned off per Dr. Rockwood-thinking is dopa counterproductive", "Rockwood"),
])
def test_name_after_dr_stops_at_common_words(text: str, name: str) -> None:
    names = [t for t, lab in _detected(text) if lab.startswith("NAME")]
    assert name in names and not [t for t in names if t != name and name in t]


def test_side_letter_before_a_word_is_no_initial() -> None:
    assert not [t for t, lab in _detected("hematoma on R and ecchymosis on L. Pedal pulses palpable.")
                if lab.startswith("NAME")]


@pytest.mark.parametrize("text", [
    "RAPID AF RXED W PROCAN LOAD & GTT W CONVERSION TO SR. PT STABLE. NO COMPLAINTS OF PAIN NOTED.",
    "CRACKER GIVEN WITH ORAL AMNIODARONE. TAKING SIPS OF WATER. PT RESTING COMFORTABLY ON 2L NC.",
])
def test_capitals_invented_by_recasing_make_no_name(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab.startswith("NAME")]


@pytest.mark.parametrize(("text", "phone"), [
    ("home 201/324/1423.", "201/324/1423"),
    ("MD to call with update: 410 392 0780 x45.", "x45"),
])
def test_phones_with_slashes_and_short_extensions(text: str, phone: str) -> None:
    assert phone in [t for t, lab in _detected(text) if lab.startswith("CONTACT")]


@pytest.mark.parametrize("text", ["given x45 min", "pt turned x2 overnight"])
def test_short_x_numbers_without_a_phone_are_no_extensions(text: str) -> None:
    assert not [t for t, lab in _detected(text) if lab.startswith("CONTACT")]
