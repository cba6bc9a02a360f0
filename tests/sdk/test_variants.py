"""The allowed-variants file stays honest: each accepted difference says what differs and which spec page
allows both, and each is one a flow applies."""

from __future__ import annotations

import copy
import re

from .harness import HERE, VARIANTS, compare, sim_frames


def test_each_variant_names_its_difference_and_a_spec_page():
    ids = [v["id"] for v in VARIANTS]
    assert len(ids) == len(set(ids)), "a variant is listed twice"
    for v in VARIANTS:
        assert v["difference"].strip(), v["id"]
        assert v["spec"], f"{v['id']} names no spec page"
        for ref in v["spec"]:
            # a page of a dated specification version, e.g. "2025-11-25/basic/transports.mdx"
            assert re.match(r"20\d\d-\d\d-\d\d/[\w/-]+\.mdx", ref), ref


def test_each_variant_is_applied_by_a_flow():
    flows = (HERE / "test_differential.py").read_text()
    unused = [v["id"] for v in VARIANTS if f'"{v["id"]}"' not in flows]
    assert not unused, f"variants no flow applies: {unused}"


def test_a_variant_the_file_does_not_list_is_refused():
    try:
        compare([], [], ["sse-everywhere"])
    except AssertionError as err:
        assert "sse-everywhere" in str(err)
    else:
        raise AssertionError("an unlisted variant was accepted")


PLAYGROUND = {"start": {"name": "outage", "era": "modern"}, "events": [{"kind": "deploy_tool", "server": "B"}]}


def test_the_comparison_sees_a_changed_status_and_a_missing_frame():
    sim = sim_frames(PLAYGROUND)
    other = copy.deepcopy(sim)
    other[-1]["http"]["status"] = 400
    assert compare(sim, other, [])[0] != compare(sim, other, [])[1]
    assert compare(sim, sim[:-1], [])[0] != compare(sim, sim[:-1], [])[1]


def test_a_variant_makes_only_its_own_difference_equal():
    sim = sim_frames(PLAYGROUND)
    sse = copy.deepcopy(sim)
    last = sse[-1]["http"]
    last["sse"], last["headers"] = True, {"content-type": "text/event-stream", "x-accel-buffering": "no"}
    a, b = compare(sim, sse, ["body-json-or-sse"])
    assert a == b
    a, b = compare(sim, sse, [])
    assert a != b
