"""The printed components the Morris the Dodo rulebook does not describe: shelter slots and path stones.

The rulebook says there are 10 shelters "each with egg slots on one side and a back side showing a
number of stones; some shelters have a multicolour slot", that the back shows 1, 2 or 3, and that
"the last stone on the hunter's path is multicolour". It gives neither the slot colours of each
shelter nor the colours of the stones. The defaults live in ``data/default_layout.json`` (with a note
on what was guessed); a user corrects them by passing ``layout=`` (a dict or a JSON file path) or
``shelters=`` / ``path=`` to :func:`rules.morris.new_game`. Standard library only.
"""

from __future__ import annotations

import json
import os
from typing import Any

from rules.core import RulesError

COLOURS = ("blue", "purple", "red", "yellow")  # "28 egg tokens: 7 each in blue, purple, red and yellow"
EGGS_PER_COLOUR = 7
MULTI = "multi"  # a multicolour slot or stone
SHELTER_COUNT = 10  # "10 shelter tokens"
BACK_VALUES = (1, 2, 3)  # "The back side of a shelter token shows one of three values"

DEFAULT_LAYOUT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "default_layout.json")


class LayoutError(RulesError):
    """The shelter/path layout is not one the rulebook allows; the message says which rule."""


def load_layout(layout: Any = None, shelters: Any = None, path: Any = None) -> dict:
    """The validated layout ``{"shelters": [{"slots": [...], "back": n}, ...], "path": [...]}``.

    ``layout`` is None (the shipped defaults), a dict of the same form, or the path of a JSON file;
    ``shelters`` and ``path`` override the corresponding part.
    """
    if layout is None:
        layout = DEFAULT_LAYOUT_PATH
    if isinstance(layout, str):
        try:
            with open(layout, encoding="utf-8") as fh:
                layout = json.load(fh)
        except (OSError, json.JSONDecodeError) as exc:
            raise LayoutError(f"cannot read the layout file {layout!r}: {exc}") from None
    if not isinstance(layout, dict):
        raise LayoutError("a layout is a dict with 'shelters' and 'path'")
    if "colours" in layout and sorted(layout["colours"]) != sorted(COLOURS):
        raise LayoutError(f"the eggs come in {', '.join(COLOURS)} (rulebook: Components)")
    if layout.get("eggs_per_colour", EGGS_PER_COLOUR) != EGGS_PER_COLOUR:
        raise LayoutError("there are 7 eggs of each colour (rulebook: Components)")
    shelters = layout.get("shelters") if shelters is None else shelters
    path = layout.get("path") if path is None else path
    return {"shelters": _check_shelters(shelters), "path": _check_path(path)}


def _check_shelters(shelters: Any) -> list:
    if not isinstance(shelters, (list, tuple)) or len(shelters) != SHELTER_COUNT:
        raise LayoutError(f"there are {SHELTER_COUNT} shelter tokens (rulebook: Components)")
    out = []
    for i, shelter in enumerate(shelters):
        if not isinstance(shelter, dict) or "slots" not in shelter or "back" not in shelter:
            raise LayoutError(f"shelter {i}: a shelter is {{'slots': [colours], 'back': 1|2|3}}")
        slots = list(shelter["slots"])
        if not slots:
            raise LayoutError(f"shelter {i}: a shelter has egg slots on one side (rulebook: Components)")
        for colour in slots:
            if colour not in COLOURS and colour != MULTI:
                raise LayoutError(f"shelter {i}: slot colour {colour!r} is not one of {COLOURS + (MULTI,)}")
        back = shelter["back"]
        if isinstance(back, bool) or back not in BACK_VALUES:
            raise LayoutError(f"shelter {i}: the back side shows 1, 2 or 3 stones (rulebook: Shelters), got {back!r}")
        out.append({"slots": slots, "back": int(back)})
    return out


def _check_path(path: Any) -> list:
    if not isinstance(path, (list, tuple)) or not path:
        raise LayoutError("the hunter's path is a non-empty list of stone colours")
    path = list(path)
    if path[-1] != MULTI:
        raise LayoutError("the last stone on the hunter's path is multicolour (rulebook: How to Play)")
    for i, colour in enumerate(path[:-1]):
        if colour == MULTI:
            raise LayoutError(f"stone {i + 1}: only the last stone is multicolour (rulebook: How to Play)")
        if colour not in COLOURS:
            raise LayoutError(f"stone {i + 1}: colour {colour!r} is not one of {COLOURS}")
    return path
