"""What the score sender tells the outbox for each answer a platform can give (or not give)."""

from __future__ import annotations

from lesson.portal.lti.sender import deliver, scores_url

from .platform import Platform


def _payload(platform: Platform, **change) -> dict:
    return {
        "iss": platform.issuer,
        "client_id": platform.client_id,
        "lineitem": f"{platform.base}/lineitems/1",
        "score": {"userId": "u", "scoreGiven": 1, "scoreMaximum": 2},
        **change,
    }


def test_the_scores_url_keeps_the_line_item_s_query():
    assert scores_url("https://lms.example/li/7?type=x") == "https://lms.example/li/7/scores?type=x"
    assert scores_url("https://lms.example/li/7/") == "https://lms.example/li/7/scores"


def test_a_score_for_a_platform_no_longer_registered_is_given_up(live):
    lti = live()
    outcome = deliver(lti.app.extensions["lti"], _payload(lti.platform, iss="https://gone.example"))
    assert outcome.status == "give_up" and "no longer registered" in outcome.reason
    outcome = deliver(lti.app.extensions["lti"], _payload(lti.platform, client_id="another"))
    assert outcome.status == "give_up"


def test_an_unreachable_platform_is_tried_again(live):
    lti = live()
    tool = lti.app.extensions["lti"]
    lti.platform_server.shutdown()
    lti.platform_server.server_close()
    outcome = deliver(tool, _payload(lti.platform))
    assert outcome.status == "retry"


def test_delivered_busy_and_refused(live):
    lti = live()
    tool = lti.app.extensions["lti"]
    assert deliver(tool, _payload(lti.platform)).status == "delivered"
    assert lti.platform.received.scores[-1]["scoreGiven"] == 1
    lti.platform.scores_status = 429
    assert deliver(tool, _payload(lti.platform)).status == "retry"
    lti.platform.scores_status = 404
    refused = deliver(tool, _payload(lti.platform))
    assert refused.status == "give_up" and "404" in refused.reason
