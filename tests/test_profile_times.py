"""A clock time is not PHI under ``hipaa`` and ``meddocan``; a date that looks like one must stay PHI."""

from __future__ import annotations

import pytest

from clinanon.profiles import get_profile, is_time_of_day


@pytest.mark.parametrize("text", ["13:45", "1:45pm", "4PM", "10 a.m.", "14 Uhr", "13.45 Uhr", "13.45 h", "14h30",
                                  "0930 h", "22:15:07", "noon", "at 13:45", "8 uur"])
def test_clock_times(text: str) -> None:
    assert is_time_of_day(text)


@pytest.mark.parametrize("text", ["21.07.22", "05.11.24", "05.11", "5.11.", "10/19 4pm", "2013-06-08", "12.03.2021",
                                  "3.4", "19.09"])
def test_dates_that_look_like_times_are_not_times(text: str) -> None:
    assert not is_time_of_day(text)


@pytest.mark.parametrize("profile", ["hipaa", "meddocan"])
def test_a_german_short_date_stays_phi_under_profiles_without_times(profile: str) -> None:
    assert get_profile(profile).is_phi("DATE", "21.07.22")
    assert not get_profile(profile).is_phi("DATE", "13:45")
