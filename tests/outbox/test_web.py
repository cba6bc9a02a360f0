"""The outbox in the app: a statement is in the store before /api/xapi answers, /healthz reports the
outbox's depth, oldest age and given-up count, and malformed outbox settings stop start-up."""

from __future__ import annotations

from pathlib import Path

import pytest

from lesson.content.course import default_root, load_content
from lesson.portal import outbox_sqlite
from lesson.settings import SettingsError
from lesson.web import create_app
from tests import statements
from tests.outbox.fakelrs import FakeLrs

ACTOR = statements.anonymous_actor("https://lab.example", "visit-1")
# Statements are about this course's lessons: the store trusts what the server forwards.
IRI = f"https://lab.example/lessons/{load_content(default_root()).lessons[0].meta.slug}"


def make(tmp_path: Path, **config: object):
    return create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "t",
            "OUTBOX_URL": f"sqlite:///{tmp_path}/o.db",
            "PUBLIC_URL": "https://lab.example",
            **config,
        }
    )


def test_a_statement_is_in_the_outbox_before_the_answer_and_healthz_reports_it(tmp_path: Path) -> None:
    # Nothing listens on port 9: the statements wait in the outbox.
    app = make(tmp_path, LRS_ENDPOINT="http://127.0.0.1:9/xapi", OUTBOX_RETRY_INITIAL=60)
    c = app.test_client()
    sent = [statements.answered(ACTOR, IRI, f"q{i}", "b", True).to_json() for i in range(3)]
    assert c.post("/api/xapi", json=sent).get_json() == {"queued": 3, "dropped": 0}
    # A second connection to the file (a process started after a crash would open one) finds them.
    other = outbox_sqlite.SqliteStore(tmp_path / "o.db", 100, 1 << 20)
    assert [i.payload["id"] for i in other.pending(10)] == [s["id"] for s in sent]
    report = c.get("/healthz").get_json()["outbox"]
    assert report["depth"] == 3 and report["oldest_age"] >= 0 and report["given_up"] == 0
    assert report["refused"] == 0


def test_a_full_outbox_refuses_statements_without_failing_the_page(tmp_path: Path) -> None:
    app = make(tmp_path, LRS_ENDPOINT="http://127.0.0.1:9/xapi", OUTBOX_MAX_ITEMS=2, OUTBOX_RETRY_INITIAL=60)
    c = app.test_client()
    sent = [statements.answered(ACTOR, IRI, f"q{i}", "b", True).to_json() for i in range(3)]
    assert c.post("/api/xapi", json=sent[:2]).get_json() == {"queued": 2, "dropped": 0}
    resp = c.post("/api/xapi", json=sent[2])
    assert resp.status_code == 202 and resp.get_json() == {"queued": 0, "dropped": 1}
    report = c.get("/healthz").get_json()["outbox"]
    assert report["depth"] == 2 and report["refused"] == 1


def test_healthz_reports_statements_given_up(store: FakeLrs, tmp_path: Path) -> None:
    store.refuse_response = "bad"
    app = make(tmp_path, LRS_ENDPOINT=store.url, OUTBOX_POLL=0.05)
    c = app.test_client()
    bad = statements.answered(ACTOR, IRI, "q1", "bad", False).to_json()
    assert c.post("/api/xapi", json=bad).get_json()["queued"] == 1  # the request started the sender
    assert statements.drained(app.extensions["lrs"], 20)
    report = c.get("/healthz").get_json()["outbox"]
    assert report["depth"] == 0 and report["given_up"] == 1 and report["set_aside"] == 1
    app.extensions["outbox"].stop()


def test_without_a_record_store_there_is_no_outbox(tmp_path: Path) -> None:
    app = make(tmp_path)
    assert "outbox" not in app.test_client().get("/healthz").get_json()
    assert not (tmp_path / "o.db").exists()


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"OUTBOX_URL": "mysql://db/x"}, "LESSON_OUTBOX_URL"),
        ({"OUTBOX_MAX_ITEMS": 0}, "LESSON_OUTBOX_MAX_ITEMS"),
        ({"OUTBOX_MAX_BYTES": "lots"}, "LESSON_OUTBOX_MAX_BYTES"),
        ({"OUTBOX_LEASE": -1}, "LESSON_OUTBOX_LEASE"),
        ({"OUTBOX_RETRY_MAX": 0}, "LESSON_OUTBOX_RETRY_MAX"),
        ({"OUTBOX_RETRY_INITIAL": 10, "OUTBOX_RETRY_MAX": 5}, "LESSON_OUTBOX_RETRY_INITIAL"),
        ({"LRS_QUEUE_SIZE": 10}, "LESSON_OUTBOX_MAX_ITEMS"),
    ],
)
def test_malformed_outbox_settings_stop_start_up(config: dict, named: str) -> None:
    with pytest.raises(SettingsError, match=named):
        create_app({"TESTING": True, "SECRET_KEY": "t", **config})


def test_an_outbox_that_cannot_be_kept_stops_start_up_saying_where(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(SettingsError, match="LESSON_OUTBOX_URL"):
        create_app(
            {
                "TESTING": True,
                "SECRET_KEY": "t",
                "LRS_ENDPOINT": "http://127.0.0.1:9/xapi",
                "OUTBOX_URL": f"sqlite:///{tmp_path}/file/outbox.db",
            }
        )
