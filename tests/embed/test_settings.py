"""Settings validation: malformed values stop start-up with a message naming the variable."""

from __future__ import annotations

import pytest

from lesson.settings import SettingsError, embed_origins, parse_frame_ancestors, validate_settings


@pytest.mark.parametrize(
    "value",
    [
        "*",
        "'self'",
        "'none'",
        "'self' https://portal.example",
        "https://lms.example:8443 *.example.com https:",
        "https://*.moodle.example http://127.0.0.1:8000",
        "https://portal.example/courses/",
    ],
)
def test_valid_frame_ancestors(value: str) -> None:
    assert parse_frame_ancestors(value) == value.split()
    validate_settings({"FRAME_ANCESTORS": value})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("https://a.example,https://b.example", "separate sources with spaces"),
        ("https://a.example; script-src *", "separate sources with spaces"),
        ("", "is empty"),
        ("self", "needs single quotes ('self')"),
        ("none", "needs single quotes ('none')"),
        ("'none' https://a.example", "'none' must stand alone"),
        ("'unsafe-inline'", "only 'self' and 'none'"),
        ("https://exa_mple.com", "'https://exa_mple.com' is not a host source"),
        ("https://portal.example:99999", "port out of range"),
        ("https://portal.example/?q=1", "query or fragment"),
        ("https://[::1]", "is not a host source"),
    ],
)
def test_malformed_frame_ancestors_are_refused(value: str, message: str) -> None:
    with pytest.raises(SettingsError, match="LESSON_FRAME_ANCESTORS") as err:
        validate_settings({"FRAME_ANCESTORS": value})
    assert message in str(err.value)


def test_a_list_is_refused_with_the_expected_form() -> None:
    with pytest.raises(SettingsError, match="space-separated string"):
        parse_frame_ancestors(["https://a.example"])


def test_embed_origins_come_from_exact_frame_ancestors_unless_set() -> None:
    config = {"FRAME_ANCESTORS": "'self' https://LMS.example:8443 https://*.moodle.example *.other.example https: *"}
    assert embed_origins(config) == ["https://lms.example:8443", "https://*.moodle.example"]
    assert embed_origins({**config, "EMBED_ORIGINS": "https://portal.example *"}) == ["https://portal.example", "*"]
    assert embed_origins({"FRAME_ANCESTORS": "*"}) == []


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"EMBED_ORIGINS": "portal.example"}, "LESSON_EMBED_ORIGINS"),
        ({"EMBED_ORIGINS": "https://portal.example/path"}, "not an origin"),
        ({"MAX_FRAME_BYTES": 0}, "LESSON_MAX_FRAME_BYTES must be a whole number"),
        ({"CACHE_BYTES": "lots"}, "LESSON_CACHE_BYTES"),
        ({"MAX_CONTENT_LENGTH": True}, "LESSON_MAX_CONTENT_LENGTH"),
        ({"SESSION_COOKIE_SAMESITE": "lax"}, "must be Lax, Strict or None"),
        ({"SESSION_COOKIE_SAMESITE": "None"}, "needs LESSON_SESSION_COOKIE_SECURE=true"),
        ({"PUBLIC_URL": "lab.example/mcp"}, "LESSON_PUBLIC_URL must be an http(s) URL"),
        ({"CONTENT_ROOT": "/nowhere/at/all"}, "is not a folder"),
        ({"LRS_ENDPOINT": "https://lrs.example/xapi", "LRS_USERNAME": "u"}, "both LRS_USERNAME and LRS_PASSWORD"),
        ({"LRS_PASSWORD": "p"}, "LESSON_LRS_ENDPOINT is not"),
    ],
)
def test_other_malformed_settings_are_refused(config: dict, message: str) -> None:
    with pytest.raises(SettingsError) as err:
        validate_settings(config)
    assert message in str(err.value)


def test_every_problem_is_listed_at_once() -> None:
    with pytest.raises(SettingsError) as err:
        validate_settings({"FRAME_ANCESTORS": "self", "MAX_FRAME_BYTES": -1, "SESSION_COOKIE_SAMESITE": "x"})
    text = str(err.value)
    assert "LESSON_FRAME_ANCESTORS" in text and "LESSON_MAX_FRAME_BYTES" in text and "SAMESITE" in text


def test_the_app_defaults_are_valid(app) -> None:
    validate_settings(app.config)
    validate_settings({"SESSION_COOKIE_SAMESITE": "None", "SESSION_COOKIE_SECURE": True, "CACHE_BYTES": "10"})
