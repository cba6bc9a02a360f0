"""``lesson lti-keys`` and the LTI settings."""

from __future__ import annotations

import json
import stat

import pytest
from jwcrypto.jwk import JWK

from lesson.cli import main
from lesson.settings import SettingsError


def test_lti_keys_writes_a_key_pair_the_owner_alone_can_read(tmp_path, capsys):
    assert main(["lti-keys", "--out", str(tmp_path / "keys")]) == 0
    private, public = tmp_path / "keys" / "private.key", tmp_path / "keys" / "public.key"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    key = JWK.from_pem(private.read_bytes())
    assert key.has_private and key.export_public(as_dict=True)["n"] == JWK.from_pem(public.read_bytes())["n"]
    assert "private.key" in capsys.readouterr().out


def test_lti_keys_does_not_replace_keys_unless_told(tmp_path, capsys):
    assert main(["lti-keys", "--out", str(tmp_path)]) == 0
    before = (tmp_path / "private.key").read_bytes()
    assert main(["lti-keys", "--out", str(tmp_path)]) == 1
    assert "--force" in capsys.readouterr().err
    assert (tmp_path / "private.key").read_bytes() == before
    assert main(["lti-keys", "--out", str(tmp_path), "--force"]) == 0
    assert (tmp_path / "private.key").read_bytes() != before


def test_a_missing_or_broken_lti_config_stops_start_up_naming_it(tmp_path):
    from lesson.web import create_app

    with pytest.raises(SettingsError, match="LESSON_LTI_CONFIG"):
        create_app({"LTI_CONFIG": str(tmp_path / "absent.json")})
    broken = tmp_path / "lti.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(SettingsError, match="LESSON_LTI_CONFIG"):
        create_app({"LTI_CONFIG": str(broken)})
    broken.write_text(json.dumps({"https://lms.example": {"client_id": "x"}}), encoding="utf-8")
    with pytest.raises(SettingsError, match="LESSON_LTI_CONFIG"):
        create_app({"LTI_CONFIG": str(broken)})


def test_an_lti_store_in_a_missing_folder_stops_start_up(tmp_path):
    from lesson.web import create_app

    config = tmp_path / "lti.json"
    config.write_text("{}", encoding="utf-8")
    with pytest.raises(SettingsError, match="LESSON_LTI_STATE"):
        create_app({"LTI_CONFIG": str(config), "LTI_STATE": str(tmp_path / "absent" / "lti.sqlite3")})
