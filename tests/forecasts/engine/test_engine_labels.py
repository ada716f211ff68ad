"""Member codes in a reader's words, on the fit page, the panel page and in reports."""

from __future__ import annotations

from forecasts.demand.engine.labels import member_words, plain_method


def test_member_codes_read_as_words_and_unknown_names_stay_as_they_are() -> None:
    assert member_words("ets_damped_orig") == "damped ETS on the original scale"
    assert member_words("dotm_log") == "dynamic optimised Theta on the log scale"
    assert member_words("theta") == "Theta" and member_words("combined") == "the combination"
    assert member_words("global") == "the pooled model (learned across the panel)"
    assert member_words("thetas") == "thetas" and member_words("my_curve") == "my_curve"
    assert plain_method("median of 3 of 11 members (ets_damped_orig, dotm, rwd_log)") == (
        "median of 3 of 11 members (damped ETS on the original scale, dynamic optimised Theta, "
        "random walk with drift on the log scale)")
