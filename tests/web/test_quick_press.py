"""A press frame as the page sends it is read without pydantic (``quick_press``); it must take exactly
the presses pydantic's FRAME takes, as the same frame, and leave everything else to FRAME."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from lesson.protocol import FRAME, PressFrame, quick_press

HANDLE = "Ab3_-" * 6  # 30 characters of the handle alphabet
PRESS = {"v": 2, "type": "press", "handle": HANDLE, "seq": 7, "button": "a-dies"}
ODD_VALUES = (
    [None, True, False, 0, -1, 2, 2.0, 1_000_000_000, 1_000_000_001, 2**64, "", "2", "a-dies", "A-dies",
     "-x", "x" * 40, "x" * 41, "x\n", HANDLE, HANDLE[:21], HANDLE + "é", "press", "undo", [], {}, [1], "\ud800",
     "-" * 22, "_" * 64, "_" * 65, "\u0661" * 22, HANDLE + "\n", "a_b", "9-", "0", "a--b", "x" * 39 + "X"]
)  # fmt: skip
ODD = st.sampled_from(ODD_VALUES)
KEYS = st.sampled_from(["v", "type", "id", "handle", "seq", "button", "log", "era", "extra"])


def pydantic_reads(text: str):
    try:
        return FRAME.validate_json(text)
    except ValidationError:
        return None


@settings(max_examples=500)
@given(changes=st.dictionaries(KEYS, ODD, max_size=3), dropped=st.sets(KEYS, max_size=2))
def test_a_quick_press_is_the_frame_pydantic_reads(changes: dict, dropped: set) -> None:
    frame = {k: v for k, v in {**PRESS, **changes}.items() if k not in dropped}
    try:
        text = json.dumps(frame)
    except ValueError:
        return
    quick = quick_press(text)
    slow = pydantic_reads(text)
    if quick is not None:
        assert slow is not None, f"read a press pydantic refuses: {text}"
        assert quick == slow and quick.model_dump() == slow.model_dump()
    elif isinstance(slow, PressFrame) and frame.keys() <= {"v", "type", "id", "handle", "seq", "button"}:
        # A well-formed press with no log is what the page sends: none is missed (but for an id past
        # 64 bits, which orjson does not read).
        assert isinstance(frame.get("id"), int) and abs(frame["id"]) >= 2**63, f"missed: {text}"


def test_the_page_s_own_press_is_read_quickly_and_the_rest_is_left_to_pydantic() -> None:
    assert quick_press(json.dumps(PRESS)) == FRAME.validate_json(json.dumps(PRESS))
    assert quick_press(json.dumps({**PRESS, "id": 3})).id == 3
    assert quick_press(json.dumps({**PRESS, "id": "q-1"})).id == "q-1"
    for text in (
        json.dumps({**PRESS, "type": "undo"}),
        json.dumps({**PRESS, "log": {"era": "modern"}}),  # a press with its log: pydantic reads the log
        json.dumps({**PRESS, "seq": True}),
        json.dumps({**PRESS, "v": 2.0}),
        '{"v": 2, "type": "press", ',
        "[]",
    ):
        assert quick_press(text) is None, text


def test_each_odd_value_in_each_field_is_read_as_pydantic_reads_it() -> None:
    # Every value above in every field, one at a time (the random test above mixes them).
    for key in ("v", "id", "handle", "seq", "button"):
        for value in ODD_VALUES:
            text = json.dumps({**PRESS, key: value})
            quick, slow = quick_press(text), pydantic_reads(text)
            assert quick is None or quick == slow, f"read a press pydantic refuses: {text}"
            if isinstance(slow, PressFrame) and not (key == "id" and isinstance(value, int) and abs(value) >= 2**63):
                assert quick == slow, f"missed: {text}"
