"""The SCORM 1.2 export: the CLI writes a package, and the manifest checks catch broken packages."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest

from lesson import cli
from lesson.portal import scorm

SERVER = "https://lab.example/training/mcp/"


def _files(data: bytes) -> dict[str, bytes]:
    zf = zipfile.ZipFile(io.BytesIO(data))
    return {name: zf.read(name) for name in zf.namelist()}


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, body in files.items():
            zf.writestr(name, body)
    return buf.getvalue()


def test_cli_writes_a_valid_package(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pkg" / "an-outage.zip"
    assert cli.main(["export-scorm", "an-outage", "-o", str(out), "--server", SERVER]) == 0
    assert str(out) in capsys.readouterr().out
    data = out.read_bytes()
    manifest = scorm.validate_package(data)
    ns = {"cp": scorm.IMSCP, "adlcp": scorm.ADLCP}
    res = manifest.find("cp:resources/cp:resource", ns)
    assert res.get(f"{{{scorm.ADLCP}}}scormtype") == "sco"
    assert res.get("href") == "index.html"
    assert manifest.findtext("cp:organizations/cp:organization/cp:item/adlcp:masteryscore", namespaces=ns) == "80"
    assert "An outage" in manifest.findtext("cp:organizations/cp:organization/cp:item/cp:title", namespaces=ns)
    files = _files(data)
    assert set(files) == {"imsmanifest.xml", "index.html", "scorm.js"}
    # Readable by all once unpacked with the stored modes, as a platform's web server must read them.
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert {oct(i.external_attr >> 16) for i in zf.infolist()} == {oct(0o100644)}
    page = files["index.html"].decode()
    assert 'data-lesson-url="https://lab.example/training/mcp/lessons/an-outage?embed=1"' in page
    js = files["scorm.js"].decode()
    for call in ("LMSInitialize", "LMSSetValue", "LMSCommit", "LMSFinish", "cmi.suspend_data", "cmi.core.score.raw"):
        assert call in js


def test_same_input_gives_the_same_bytes() -> None:
    assert scorm.build_package("a", "A", SERVER) == scorm.build_package("a", "A", SERVER)


def test_the_title_is_escaped_in_xml_and_html() -> None:
    files = _files(scorm.build_package("a", "Tools & <servers>", SERVER))
    assert b"Tools &amp; &lt;servers&gt;" in files["imsmanifest.xml"]
    assert b"Tools &amp; &lt;servers&gt;" in files["index.html"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export-scorm", "no-such-lesson", "--server", SERVER], "no lesson 'no-such-lesson'"),
        # A lesson that was split: the message says so and names the lessons to export instead.
        (["export-scorm", "hot-swapping", "--server", SERVER], "split into several lessons; export one package"),
        (["export-scorm", "an-outage", "--server", "ftp://lab.example"], "http(s) URL"),
        (["export-scorm", "an-outage", "--server", "https://lab.example/?x=1"], "query or fragment"),
        (["export-scorm", "an-outage", "--server", SERVER, "--mastery", "101"], "0..100"),
    ],
)
def test_cli_refuses_bad_input_clearly(argv: list[str], message: str, tmp_path: Path, capsys) -> None:
    out = tmp_path / "x.zip"
    assert cli.main([*argv, "-o", str(out)]) == 1
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_cli_needs_a_server(tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    # A missing server is bad input like the others (exit 1); exit 2 is kept for a file it cannot write.
    monkeypatch.delenv("LESSON_PUBLIC_URL", raising=False)
    out = tmp_path / "x.zip"
    assert cli.main(["export-scorm", "an-outage", "-o", str(out)]) == 1
    assert "--server" in capsys.readouterr().err
    assert not out.exists()


def _broken(edit) -> bytes:
    files = _files(scorm.build_package("a", "A", SERVER))
    edit(files)
    return _zip(files)


def _replace(old: str, new: str):
    def edit(files: dict[str, bytes]) -> None:
        text = files["imsmanifest.xml"].decode()
        assert old in text
        files["imsmanifest.xml"] = text.replace(old, new, 1).encode()

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda f: f.pop("imsmanifest.xml"), "must sit at the root"),
        (lambda f: f.pop("scorm.js"), "file 'scorm.js' is not in the package"),
        (lambda f: f.update({"extra.txt": b"x"}), "no resource lists: extra.txt"),
        (_replace("</manifest>", ""), "not well-formed"),
        (_replace('adlcp:scormtype="sco"', 'adlcp:scormtype="asset"'), "no resource is a SCO"),
        (_replace('adlcp:scormtype="sco"', 'adlcp:scormtype="lesson"'), "must be 'sco' or 'asset'"),
        (_replace('identifierref="sco-a"', 'identifierref="nope"'), "names no resource"),
        (_replace('identifier="item-a"', 'identifier="sco-a"'), "used twice"),
        (_replace('identifier="item-a"', 'identifier="1 bad"'), "not an XML ID"),
        (_replace('default="org-a"', 'default="org-b"'), "names no organization"),
        (_replace("<schemaversion>1.2</schemaversion>", "<schemaversion>2004</schemaversion>"), "must be '1.2'"),
        (_replace("<adlcp:masteryscore>80<", "<adlcp:masteryscore>high<"), "masteryscore must be a number"),
        (_replace('type="webcontent"', 'type="web"'), "type must be 'webcontent'"),
        (_replace("<title>A</title>", "<title> </title>"), "has no <title>"),
        (_replace("<title>A</title>", f"<title>{'A' * 201}</title>"), "over SCORM 1.2's 200 characters"),
        (lambda f: f.update({"../evil": b"x"}), "unsafe path"),
    ],
)
def test_validation_names_what_is_broken(edit, message: str) -> None:
    with pytest.raises(scorm.ScormError, match=re.escape(message)):
        scorm.validate_package(_broken(edit))


def test_cli_builds_the_launch_page_in_the_chosen_locale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LESSON_LOCALE", raising=False)
    out = tmp_path / "en.zip"
    assert cli.main(["export-scorm", "an-outage", "-o", str(out), "--server", SERVER]) == 0
    assert "Connecting to the learning platform…</p>" in _files(out.read_bytes())["index.html"].decode()
    out = tmp_path / "pseudo.zip"
    assert cli.main(["export-scorm", "an-outage", "-o", str(out), "--server", SERVER, "--lang", "pseudo"]) == 0
    page = _files(out.read_bytes())["index.html"].decode()
    assert "⟦Connecting to the learning platform…⟧" in page and '<html lang="en"' in page
    # LESSON_LOCALE, the web app's setting, is the default.
    monkeypatch.setenv("LESSON_LOCALE", "pseudo")
    out = tmp_path / "env.zip"
    assert cli.main(["export-scorm", "an-outage", "-o", str(out), "--server", SERVER]) == 0
    assert "⟦Open the lesson⟧" in _files(out.read_bytes())["index.html"].decode()


def test_an_unknown_locale_is_refused_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.zip"
    assert cli.main(["export-scorm", "an-outage", "-o", str(out), "--server", SERVER, "--lang", "xx"]) == 1
    err = capsys.readouterr().err
    assert "no message catalogue for locale 'xx'" in err and "pseudo" in err
    assert not out.exists()


@pytest.mark.parametrize("where", ["/proc/x.zip", "{tmp}/file/x.zip"])
def test_cli_says_in_one_line_when_it_cannot_write_the_package(where: str, tmp_path: Path, capsys) -> None:
    (tmp_path / "file").write_text("a file, not a folder")
    out = where.format(tmp=tmp_path)
    assert cli.main(["export-scorm", "an-outage", "-o", out, "--server", SERVER]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"export-scorm: cannot write {out}: ") and err.count("\n") == 1
    assert "Traceback" not in err
