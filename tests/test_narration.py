"""Narration is data: the simulation says what happened as codes with values, and the sentences are the
``narration.*`` and ``refusal.*`` messages of the catalogue. Every code the simulation can say has an
English sentence whose placeholders are exactly the values it is given, and every locale renders it. A value
is a name, a number or a message, never an English word: a status, a role or a reason is said as a code."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any, get_args

import pytest

from lesson import narration
from lesson.content.course import default_root, load_panels
from lesson.content.panels import PlaygroundPanel, RestartLabPanel, StepperPanel
from lesson.content.restart_lab import restart_lab
from lesson.content.scenarios import scenario_events
from lesson.content.stepper import moment_views
from lesson.i18n import DEFAULT, PSEUDO, catalogue, placeholders
from lesson.playground.service import Service
from lesson.sim import advance, begin
from lesson.sim.events.churn import AddServer
from lesson.sim.model import Role, Status, Token
from lesson.sim.starts import STARTS
from lesson.sim.step import LogLine, joined, msg, word

SIM = Path(narration.__file__).parent / "sim"
ENGLISH = catalogue(DEFAULT)
# Calls that name a message, and which positional argument is its code.
SAYS = {"say": 0, "Rejected": 0, "msg": 0, "said": 0, "mark_down": 0, "relist": 0}
# The simulation's own words (``word`` in lesson/sim/step.py): a value from one of these is said as a code.
# A transport (http, stdio) is not among them: it is a name the protocol spells, in every language.
WORDS: dict[str, tuple[str, ...]] = {
    "role": get_args(Role),
    "status": get_args(Status),
    "token": get_args(Token),
    "via": get_args(AddServer.model_fields["via"].annotation),
}
# Codes built from a value rather than written out (``count``, ``era_label`` and ``word`` in lesson/sim/step.py).
BUILT = (
    "narration.count.",
    "narration.era.",
    "narration.starts.",  # a start's summary (``summary`` in lesson/sim/starts.py)
    "narration.declared.",
    "narration.event.",  # an event's heading (``describe`` in lesson/sim/events/base.py), by its kind
    "narration.era_name.",  # the words a heading fills in (``word``)
    "narration.switch.",
    *(f"narration.{kind}." for kind in WORDS),
)
# Values that are data rather than the simulation's words: a tool's reply and the question a server asks the
# user (the server's own text, quoted as the wire carries it), a server's title and the user's answer (both
# from the content); and lists of names.
DATA = {"result", "question", "title", "answer"}
LISTS = {"tools", "names"}
NAME = re.compile(r"^[\w.:/@#-]+( \([\w.:/@#-]+\))?$")  # "search", "2025-11-25", "explain_query (B)"
VOCABULARY = {w for words in WORDS.values() for w in words}


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
                if name in ("LogLine", "Said"):
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
                    # An event's heading (``describe``) is a message it builds itself, from its kind.
                    arg = call.args[SAYS[name]]
                    heading = isinstance(arg, ast.Call) and getattr(arg.func, "attr", None) == "describe"
                    assert heading or isinstance(arg, ast.Name | ast.JoinedStr), where
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
            out += [line for v in moment_views(panel, "legacy") for s in v.view.log for line in s.lines]
        elif isinstance(panel, RestartLabPanel):
            for situation in panel.situations:
                for side in restart_lab(panel, situation.id, [v.id for v in panel.variants[:1]]).sides:
                    out += [line for s in side.view.log for line in s.lines]
    for path in sorted((root / "scenarios").glob("*.yaml")):
        start, events = scenario_events(path)
        run = begin(start)
        for event in events:
            run = advance(run, event)
        out += [line for step in run.log for line in step.lines]
    return out


def words_in(params: dict[str, Any]) -> list[str]:
    """The values of a line (and of the messages inside it) that are words, not names, numbers or messages."""
    out: list[str] = []
    for key, value in params.items():
        if isinstance(value, dict):
            out += words_in(value.get("params") or {})
        elif isinstance(value, str) and key not in DATA:
            items = value.split(", ") if key in LISTS else [value]
            out += [f"{key}={item!r}" for item in items if item in VOCABULARY or not NAME.match(item)]
    return out


def test_the_word_check_finds_a_word() -> None:
    assert words_in({"server": "A", "status": "down"}) == ["status='down'"]
    assert words_in({"why": "search added"}) == ["why='search added'"]
    assert words_in({"why": msg("narration.signed_in_as", server="P", role="admin")}) == ["role='admin'"]
    assert words_in({"tools": "explain_query (B), search (A)", "result": "Error: no such tool", "n": 3}) == []
    assert words_in({"status": word("status", "down"), "theirs": joined(["2025-11-25", "2026-07-28"])}) == []


def test_every_word_of_the_simulation_has_a_sentence() -> None:
    for kind, words in WORDS.items():
        for w in words:
            assert word(kind, w)["code"] in ENGLISH, (kind, w)
    for name in STARTS:
        assert f"narration.starts.{name}" in ENGLISH, name


def words_in_source(source: str, where: str = "") -> list[str]:
    """Values the source hands a message that are words as written: a string, an f-string, or a field
    holding one of the simulation's words (``c.status``), rather than ``word("status", c.status)``."""
    out = []
    for call in [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)]:
        name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
        if name not in SAYS:
            continue
        for k in call.keywords:
            v = k.value
            if (
                (isinstance(v, ast.Constant) and isinstance(v.value, str))
                or isinstance(v, ast.JoinedStr)
                or (isinstance(v, ast.Attribute) and v.attr in WORDS)
            ):
                out.append(f"{where}:{call.lineno}: {k.arg}={ast.unparse(v)}")
    return out


def test_the_source_hands_no_message_a_word() -> None:
    assert words_in_source('st.say("narration.x", status=c.status, why=f"{t} added", n=len(x))') == [
        ":1: status=c.status",
        ":1: why=f'{t} added'",
    ]
    found = [w for path in sorted(SIM.rglob("*.py")) for w in words_in_source(path.read_text(), path.name)]
    assert found == []


def test_no_value_the_lesson_says_is_an_english_word(every_line: list[LogLine]) -> None:
    found = {f"{line.code}: {w}" for line in every_line for w in words_in(line.params)}
    assert not found, "\n".join(sorted(found))


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
        english = narration.sentence(line.code, line.params)
        assert english, line.code
        pseudo = narration.sentence(line.code, line.params, PSEUDO)
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
        (start,) = begin(panels["outage"].start).log[0].lines
        assert intro["text"] == narration.sentence(start.code, start.params, locale)
        assert intro["text"].startswith("⟦") is (locale == PSEUDO)


def test_no_test_pins_a_sentence_of_narration() -> None:
    """A test asserts a line's code and its key facts (names, numbers), or builds the sentence from the
    catalogue: no string in a test holds a stretch of a narration sentence (25 characters or more), so
    an author can reword the narration and every test stays green."""
    stretches = {
        part.strip(): key
        for key, text in ENGLISH.items()
        if key.startswith(("narration.", "refusal."))
        for part in re.split(r"\{\w+\}", text)
        if len(part.strip()) >= 25
    }
    tests = Path(__file__).parent
    pinned = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 25:
                text = node.value
                # Either way round; a part of a sentence is words (a method name alone is a key fact).
                pinned += [
                    f"{path.relative_to(tests)}:{node.lineno} {key}"
                    for part, key in stretches.items()
                    if part in text or (text in part and text.count(" ") >= 3)
                ]
    assert pinned == []


def test_every_message_that_names_an_eras_version_names_the_one_in_the_table() -> None:
    """The versions live in sim/model.py's VERSION; a message that names one beside its era (a label, a
    sentence) names that one, in every language."""
    from lesson.i18n import locales
    from lesson.sim.model import VERSION

    for locale in locales():
        for key, text in catalogue(locale).items():
            for era, version in VERSION.items():
                if key.endswith(f"era.{era}"):
                    assert version in text, (locale, key, text)
            for date in re.findall(r"\b20\d\d-\d\d-\d\d\b", text):
                assert date in VERSION.values(), (locale, key, date)
