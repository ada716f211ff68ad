"""The engine's member codes in a reader's words (pure: no Django).

The engine names its members by code (``ets_damped_orig``, ``dotm``, ``rwd_log``) in its method string, its
JSON and its panels' scores, and the commands' ``--pin`` takes those codes; pages and reports put them in words
("damped ETS on the original scale"), keeping the code beside where a planner pins one.
"""

from __future__ import annotations

import re

MEMBER_WORDS = {"ets_damped": "damped ETS", "ets": "ETS", "theta": "Theta", "dotm": "dynamic optimised Theta",
                "rwd": "random walk with drift", "arima": "ARIMA", "ces": "CES", "global": "a pooled model"}
SCALE_WORDS = {"_orig": " on the original scale", "_log": " on the log scale"}
# Whole names that are not members: what the model table and the panel scores also list.
OTHER_WORDS = {"combined": "the combination", "growth_rate": "the growth rate you entered", "linear": "linear trend",
               "exponential": "exponential growth", "logistic": "logistic curve", "gompertz": "Gompertz curve",
               "piecewise": "piecewise linear trend", "global": "the pooled model (learned across the panel)"}
_MEMBER = re.compile(r"\b(" + "|".join(MEMBER_WORDS) + r")(_orig|_log)?\b")


def plain_method(text: str) -> str:
    """An engine's method text with its member codes in words: 'rwd_orig' -> 'random walk with drift on the
    original scale' (a code without a suffix is on the series' own working scale)."""
    return _MEMBER.sub(lambda m: MEMBER_WORDS[m.group(1)] + SCALE_WORDS.get(m.group(2) or "", ""), text)


def member_words(code: str) -> str:
    """One member's or method's name in words ('ets_damped_orig' -> 'damped ETS on the original scale'); an
    unknown code is returned as it is."""
    if code in OTHER_WORDS:
        return OTHER_WORDS[code]
    whole = _MEMBER.fullmatch(code)
    return plain_method(code) if whole else code
