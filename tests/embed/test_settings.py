"""Settings validation: malformed values stop start-up with a message naming the variable."""

from __future__ import annotations

import pytest

from lesson.settings import SettingsError, embed_origins, load_settings, parse_frame_ancestors


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
    load_settings({"FRAME_ANCESTORS": value})


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
        load_settings({"FRAME_ANCESTORS": value})
    assert message in str(err.value)


def test_a_list_is_refused_with_the_expected_form() -> None:
    with pytest.raises(SettingsError, match="space-separated string"):
        parse_frame_ancestors(["https://a.example"])


def test_embed_origins_come_from_exact_frame_ancestors_unless_set() -> None:
    config = {"FRAME_ANCESTORS": "'self' https://LMS.example:8443 https://*.moodle.example *.other.example https: *"}
    assert embed_origins(config) == ["https://lms.example:8443", "https://*.moodle.example"]
    assert embed_origins({**config, "EMBED_ORIGINS": "https://portal.example *"}) == ["https://portal.example", "*"]
    assert embed_origins({"FRAME_ANCESTORS": "*"}) == []


def test_origins_are_written_as_browsers_write_them() -> None:
    # The page compares MessageEvent.origin exactly: an uppercase host or a default port in the setting
    # used to stop every message to the portal while framing and the socket still worked.
    config = {
        "EMBED_ORIGINS": "http://LOCALHOST:8812 HTTPS://Portal.example:443/ http://a.example:80 https://b.example:8443"
    }
    assert embed_origins(config) == [
        "http://localhost:8812",
        "https://portal.example",
        "http://a.example",
        "https://b.example:8443",
    ]
    assert embed_origins({"FRAME_ANCESTORS": "'self' https://LMS.example:443"}) == ["https://lms.example"]


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
        ({"LRS_ENDPOINT": "notaurl"}, "LESSON_LRS_ENDPOINT must be an http(s) URL"),
        ({"WS_RATE": "abc"}, "LESSON_WS_RATE must be a number above 0"),
        ({"WS_HELLO_TIMEOUT": 0}, "LESSON_WS_HELLO_TIMEOUT must be a number above 0"),
        ({"WS_IDLE_TIMEOUT": "0"}, "LESSON_WS_IDLE_TIMEOUT must be a number above 0"),
        ({"WS_SEND_TIMEOUT": float("nan")}, "LESSON_WS_SEND_TIMEOUT"),
        ({"WS_PING_INTERVAL": -5}, "LESSON_WS_PING_INTERVAL must be a number 0 or more"),
        ({"PROXY_FIX": "abc"}, "LESSON_PROXY_FIX must be a whole number of at least 0"),
        ({"COMPRESS_BR_LEVEL": 99}, "LESSON_COMPRESS_BR_LEVEL must be a whole number from 0 to 11"),
        ({"COMPRESS_ALGORITHM": "zip"}, "LESSON_COMPRESS_ALGORITHM must name some of br, gzip"),
        ({"SESSION_COOKIE_SECURE": "maybe"}, "LESSON_SESSION_COOKIE_SECURE must be true or false"),
        ({"CONTENT_RELOAD": "yes"}, "LESSON_CONTENT_RELOAD must be true or false"),
        ({"LOCALE": "xx"}, "LESSON_LOCALE='xx' has no message catalogue (have: en"),
    ],
)
def test_other_malformed_settings_are_refused(config: dict, message: str) -> None:
    with pytest.raises(SettingsError) as err:
        load_settings(config)
    assert message in str(err.value)


def test_every_problem_is_listed_at_once() -> None:
    with pytest.raises(SettingsError) as err:
        load_settings({"FRAME_ANCESTORS": "self", "MAX_FRAME_BYTES": -1, "SESSION_COOKIE_SAMESITE": "x"})
    text = str(err.value)
    assert "LESSON_FRAME_ANCESTORS" in text and "LESSON_MAX_FRAME_BYTES" in text and "SAMESITE" in text


def test_the_app_defaults_are_valid(app) -> None:
    load_settings(app.config)
    load_settings({"SESSION_COOKIE_SAMESITE": "None", "SESSION_COOKIE_SECURE": True, "CACHE_BYTES": "10"})
    # Values as the environment gives them (read as JSON where they can be).
    load_settings(
        {"WS_RATE": 2.5, "WS_PING_INTERVAL": 0, "PROXY_FIX": 1, "COMPRESS_BR_LEVEL": "4", "COMPRESS_ALGORITHM": "gzip"}
    )


def test_a_bad_setting_stops_serve_with_a_message_not_a_traceback(monkeypatch, capsys) -> None:
    from lesson.cli import main

    monkeypatch.setenv("LESSON_WS_RATE", "abc")  # used to pass start-up and fail every socket
    monkeypatch.setenv("LESSON_PROXY_FIX", "two")  # used to end start-up in a ValueError traceback
    assert main(["serve", "--port", "0"]) == 1
    err = capsys.readouterr().err
    assert "bad settings" in err and "LESSON_WS_RATE" in err and "LESSON_PROXY_FIX" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "80000"], "80000 is outside 0..65535"),
        (["--workers", "-1"], "-1 is outside 0..64"),
        (["--workers", "2", "--port", "0"], "--port 0 (a free port) works only without --workers"),
    ],
)
def test_serve_refuses_bad_arguments(args: list[str], message: str, capsys) -> None:
    from lesson.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["serve", *args])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


def test_settings_layer_defaults_then_the_environment_then_the_app_config(monkeypatch) -> None:
    from lesson.settings import load_settings

    monkeypatch.setenv("LESSON_WS_RATE", "2.5")
    monkeypatch.setenv("LESSON_SESSION_COOKIE_SECURE", "true")
    monkeypatch.setenv("LESSON_COMPRESS_ALGORITHM", "gzip")
    monkeypatch.setenv("LESSON_API_BURST", "7")
    settings = load_settings({"API_BURST": 9, "TESTING": True})
    assert (settings.WS_RATE, settings.SESSION_COOKIE_SECURE, settings.COMPRESS_ALGORITHM) == (2.5, True, ["gzip"])
    assert settings.API_BURST == 9 and settings.WS_BURST == 40
    monkeypatch.setenv("LESSON_WS_BURST", "many")
    with pytest.raises(SettingsError) as err:
        load_settings({"API_RATE": -1})
    assert "LESSON_WS_BURST" in str(err.value) and "LESSON_API_RATE" in str(err.value)
