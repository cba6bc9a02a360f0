"""Narration is data: the simulation says what happened as codes with values, and the sentences are the
``narration.*`` and ``refusal.*`` messages of the catalogue. Every code the simulation can say has an
English sentence whose placeholders are exactly the values it is given, and every locale renders it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lesson import narration
from lesson.content.course import default_root
from lesson.content.panels import PlaygroundPanel, RestartLabPanel, StepperPanel, load_panels
from lesson.content.restart_lab import restart_lab
from lesson.content.scripts import load_scenario
from lesson.content.stepper import stepper_views
from lesson.i18n import DEFAULT, PSEUDO, catalogue, placeholders
from lesson.playground.service import Service
from lesson.sim import advance, begin
from lesson.sim.step import LogLine

SIM = Path(narration.__file__).parent / "sim"
ENGLISH = catalogue(DEFAULT)
# Calls that name a message, and which positional argument is its code.
SAYS = {"say": 0, "Rejected": 0, "msg": 0, "mark_down": 1, "relist": 0}
# Codes built from a value rather than written out (``count`` and ``era_label`` in lesson/sim/step.py).
BUILT = ("narration.count.", "narration.era.")


def _candidates(node: ast.expr, assigned: dict[str, ast.expr]) -> list[str] | None:
    """The codes an argument can be: a string, either side of a conditional, or a local name set to one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        a, b = _candidates(node.body, assigned), _candidates(node.orelse, assigned)
        return None if a is None or b is None else a + b
    if isinstance(node, ast.Name) and node.id in assigned:
        return _candidates(assigned[node.id], {})
    return None


def _assigned(nodes) -> dict[str, ast.expr]:
    return {t.id: n.value for n in nodes if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}


def said_in_source() -> list[tuple[str, str, set[str] | None]]:
    """Every (place, code, keyword names) the simulation's source says; names are None where a call
    passes its values on (``**params``)."""
    out = []
    for path in sorted(SIM.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = _assigned(tree.body)
        for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            assigned = {**module, **_assigned(ast.walk(fn))}
            for call in [n for n in ast.walk(fn) if isinstance(n, ast.Call)]:
                name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
                where = f"{path.relative_to(SIM)}:{call.lineno}"
                if name == "LogLine":
                    kw = {k.arg: k.value for k in call.keywords}
                    params = kw.get("params")
                    keys = {k.value for k in params.keys} if isinstance(params, ast.Dict) else set()
                    out += [(where, c, keys) for c in _candidates(kw["code"], assigned) or []]
                    continue
                if name not in SAYS or len(call.args) <= SAYS[name]:
                    continue
                codes = _candidates(call.args[SAYS[name]], assigned)
                keys = None if any(k.arg is None for k in call.keywords) else {k.arg for k in call.keywords}
                if codes is None:
                    # Only the helpers that hand a code on (and the f-string codes they build) say no code here.
                    assert isinstance(call.args[SAYS[name]], ast.Name | ast.JoinedStr), where
                    continue
                out += [(where, code, keys) for code in codes]
    return out


def test_every_code_the_source_says_has_an_english_sentence_with_exactly_its_values() -> None:
    said = said_in_source()
    assert len(said) > 150, "the scan found the simulation's narration"
    problems = []
    for where, code, keys in said:
        if code not in ENGLISH:
            problems.append(f"{where}: {code} is not in lesson/messages/en.json")
        elif keys is not None and placeholders(ENGLISH[code]) != keys:
            problems.append(f"{where}: {code} is given {sorted(keys)}, its sentence fills {ENGLISH[code]!r}")
    assert not problems, "\n".join(problems)


def test_every_narration_message_is_one_the_simulation_says() -> None:
    said = {code for _, code, _ in said_in_source()}
    unused = [k for k in ENGLISH if k.startswith(("narration.", "refusal.")) and k not in said]
    assert [k for k in unused if not k.startswith(BUILT)] == []


def _every_line() -> list[LogLine]:
    """Every line the lesson's panels and scenarios say: each playground's buttons in order in each start
    and era, each stepper, each restart-lab situation, each scenario."""
    root = default_root()
    out: list[LogLine] = []
    for panel in load_panels(root).values():
        if isinstance(panel, PlaygroundPanel):
            eras = ("legacy", "modern") if panel.era_choice else (panel.start.era,)
            for variant in [None, *panel.variants]:
                for era in eras:
                    run = begin(panel.start_for(variant, era=era))
                    for button in [*panel.buttons, *panel.buttons[::-1]]:
                        run = advance(run, button.event)
                        out += [*run.last.lines, *(run.other.lines if run.other else [])]
                    out += [line for step in run.log for line in step.lines]
        elif isinstance(panel, StepperPanel) and panel.start is not None:
            out += [line for v in stepper_views(panel, "legacy") for s in v.view.log for line in s.lines]
        elif isinstance(panel, RestartLabPanel):
            for situation in panel.situations:
                for side in restart_lab(panel, situation.id, [v.id for v in panel.variants[:1]]).sides:
                    out += [line for s in side.view.log for line in s.lines]
    for path in sorted((root / "scenarios").glob("*.yaml")):
        start, events = load_scenario(path)
        run = begin(start)
        for event in events:
            run = advance(run, event)
        out += [line for step in run.log for line in step.lines]
    return out


def _codes(code: str, params: dict) -> list[tuple[str, dict]]:
    inner = [p for v in params.values() if isinstance(v, dict) for p in _codes(v["code"], v.get("params") or {})]
    return [(code, params), *inner]


@pytest.fixture(scope="module")
def every_line() -> list[LogLine]:
    return _every_line()


def test_every_line_the_lesson_says_renders_in_english_and_the_pseudo_locale(every_line: list[LogLine]) -> None:
    said = {(code, tuple(sorted(params))) for line in every_line for code, params in _codes(line.code, line.params)}
    assert len({code for code, _ in said}) > 60, "the panels and scenarios say much of what the simulation can"
    for code, names in said:
        assert placeholders(ENGLISH[code]) == set(names), code
    for line in every_line:
        english = narration.line(line).text
        assert english, line.code
        pseudo = narration.line(line, PSEUDO).text
        assert pseudo.startswith("⟦") and pseudo.count("⟦") == len(_codes(line.code, line.params)), line.code


def test_the_simulation_says_codes_and_the_answer_carries_their_sentences() -> None:
    """The simulation's lines have no words; the service's answer has both the code and the sentence,
    in the service's locale."""
    panels = load_panels(default_root())
    run = advance(begin(panels["outage"].start), panels["outage"].buttons[0].event)
    assert all(line.code and line.text == "" for line in run.last.lines)
    for locale in (DEFAULT, PSEUDO):
        page = Service(panels, locale=locale).handle_text('{"v":2,"type":"open","id":1,"panel":"outage"}').data()
        (intro,) = page["view"]["log"][0]["lines"]
        assert set(intro) == {"text", "tone", "code"}, "the values stay in the run"
        assert intro["code"] == "narration.start"
        assert intro["text"] == narration.line(begin(panels["outage"].start).log[0].lines[0], locale).text
        assert intro["text"].startswith("⟦") is (locale == PSEUDO)
