"""Answers are written by orjson (lesson.jsonout): the text must be exactly pydantic's, for every
answer a panel can give and for the model shapes orjson cannot simply write as held."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, computed_field, field_serializer

import lesson.service
from lesson.content import default_root
from lesson.jsonout import dumps
from lesson.panels import PlaygroundPanel, load_panels
from lesson.service import Service

PANELS = load_panels(default_root())
PLAYGROUNDS = sorted(p.id for p in PANELS.values() if isinstance(p, PlaygroundPanel))


@pytest.fixture(scope="module")
def answers_compared():
    """A service whose every answer is also written by pydantic and compared; the count it checked."""
    checked = [0]

    def both(model: BaseModel) -> str:
        text = dumps(model)
        assert text == model.model_dump_json()
        checked[0] += 1
        return text

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lesson.service, "dumps", both)
        yield Service(PANELS), checked


def frame(**fields) -> str:
    return json.dumps({"v": 2, **fields})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_answer_a_panel_gives_is_pydantics_text(answers_compared, data) -> None:
    service, checked = answers_compared
    before = checked[0]
    panel = PANELS[data.draw(st.sampled_from(PLAYGROUNDS))]
    variant = data.draw(st.sampled_from([None, *(v.id for v in panel.variants)]))
    opened = service.handle_text(frame(type="open", panel=panel.id, **({"variant": variant} if variant else {}))).data()
    handle, seq = opened["handle"], 0
    changes = [("press", b.id) for b in panel.buttons] + [("undo", None), ("reset", None)]
    if panel.era_choice:
        changes += [("era", "legacy"), ("era", "modern")]
    for kind, arg in data.draw(st.lists(st.sampled_from(changes), min_size=1, max_size=14)):
        extra = {"button": arg} if kind == "press" else {"era": arg} if kind == "era" else {}
        answer = service.handle_text(frame(type=kind, handle=handle, seq=seq + 1, **extra)).data()
        if answer["type"] == "view":
            seq = answer["seq"]
    # An open of a cached playground answers with the whole log, and so does one rebuilt from its log.
    service.handle_text(frame(type="open", panel=panel.id, handle=handle))
    assert checked[0] > before + 1


class Inner(BaseModel):
    name: str
    tags: set[str] = Field(default_factory=set)


class Excluded(BaseModel):
    shown: int
    hidden: list[int] = Field(default_factory=list, exclude=True)
    inner: Inner | None = None


class Serialised(BaseModel):
    n: int

    @field_serializer("n")
    def _twice(self, n: int) -> int:
        return 2 * n


class Computed(BaseModel):
    n: int

    @computed_field
    @property
    def square(self) -> int:
        return self.n * self.n


class Loose(BaseModel):
    payload: dict | None = None
    items: list[Excluded] = Field(default_factory=list)
    other: Serialised | Computed | None = None


@pytest.mark.parametrize(
    "model",
    [
        Excluded(shown=1, hidden=[1, 2], inner=Inner(name='é\u2028\x00\x7f"\\', tags={"b"})),
        Loose(payload={1: "one", "n": None, "f": 1.5, "big": 10**15, "deep": [{"x": [True]}]}),
        Loose(items=[Excluded(shown=3, hidden=[9])], other=Serialised(n=4)),
        Loose(other=Computed(n=5)),
        Loose(payload={"set": {3}, "tuple": (1, "a")}),
        Loose(payload={"id": 2**64, "neg": -(2**70)}),
    ],
    ids=["excluded", "any-payload", "serializer", "computed", "set-and-tuple", "past-64-bits"],
)
def test_model_shapes_come_out_as_pydantic_writes_them(model: BaseModel) -> None:
    assert dumps(model) == model.model_dump_json()
