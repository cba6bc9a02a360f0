"""SCORM 1.2 export: a package whose launch page frames the lesson from a running server.

The package holds ``imsmanifest.xml``, ``index.html`` (the launch page) and ``scorm.js``. The launch
page finds the LMS's ``API`` object up the window chain, frames ``{server}/lessons/{slug}?embed=1``,
and turns the xAPI-shaped statements the lesson posts to it (see ``lesson.portal.xapi``) into
``cmi.core.lesson_status``, ``cmi.core.score.*`` and ``cmi.suspend_data``; it hands that suspend data
back to the lesson when a learner returns. :func:`validate_package` checks the rules of the SCORM 1.2
content packaging schema that can be checked offline.

The launch page's UI strings come from the same message catalogue as the web app's (``lesson.i18n``),
in the locale the package is built for: the templates call ``_()``, and the strings ``scorm.js``
writes reach it as data attributes (it is copied as it is, so it holds no text of its own).
"""

from __future__ import annotations

import functools
import io
import re
import zipfile
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit
from xml.etree import ElementTree as ET

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from lesson.i18n import DEFAULT, PSEUDO, catalogue, locales, markup
from lesson.paths import templates_dir

IMSCP = "http://www.imsproject.org/xsd/imscp_rootv1p1p2"
ADLCP = "http://www.adlnet.org/xsd/adlcp_rootv1p2"
STATIC_FILES = ("scorm.js",)  # copied as they are from templates/scorm/
_ZIP_TIME = (2026, 1, 1, 0, 0, 0)  # fixed, so the same input gives the same bytes
_NCNAME = re.compile(r"^[A-Za-z_][A-Za-z0-9._-]*$")


class ScormError(ValueError):
    """A package or its input breaks a SCORM 1.2 rule; the message says which."""


class ScormOutputError(ScormError):
    """The package was built but cannot be written where asked (no such folder, no permission)."""


def lesson_url(server: str, slug: str) -> str:
    """The embedded lesson's address on ``server`` (which may be mounted under a sub-path)."""
    parts = urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ScormError(f"--server must be an http(s) URL like https://lab.example/training/mcp, not {server!r}")
    if parts.query or parts.fragment:
        raise ScormError(f"--server must not carry a query or fragment: {server!r}")
    return f"{server.rstrip('/')}/lessons/{slug}?embed=1"


def _env(locale: str) -> Environment:
    try:
        catalogue(locale)
    except KeyError:
        raise ScormError(f"no message catalogue for locale {locale!r} (have: {', '.join(locales())})") from None

    env = Environment(
        loader=FileSystemLoader(templates_dir() / "scorm"),
        autoescape=True,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )
    env.globals["_"] = functools.partial(markup, locale)  # as in the web app's templates
    return env


def build_package(slug: str, title: str, server: str, mastery: int = 80, locale: str = DEFAULT) -> bytes:
    """The zip's bytes for one lesson. ``mastery`` is the passing score in percent; ``locale`` picks the
    message catalogue of the launch page's UI strings (``pseudo`` wraps each in ⟦…⟧ for tests)."""
    if not 0 <= mastery <= 100:
        raise ScormError(f"the mastery score is a percentage (0..100), not {mastery}")
    env = _env(locale)
    values = {
        "slug": slug,
        "title": title,
        "lesson_url": lesson_url(server, slug),
        "mastery": mastery,
        "files": ["index.html", *STATIC_FILES],
        "lang": DEFAULT if locale == PSEUDO else locale,  # the pseudo-locale is English in brackets
    }
    files = {
        "imsmanifest.xml": env.get_template("imsmanifest.xml").render(values),
        "index.html": env.get_template("index.html").render(values),
    }
    for name in STATIC_FILES:
        files[name] = (templates_dir() / "scorm" / name).read_text(encoding="utf-8")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, _ZIP_TIME)
            # rw-r--r--: a platform that unpacks with the stored modes serves the files (ZipInfo says 0600).
            info.external_attr = 0o100644 << 16
            info.create_system = 3  # Unix, so unzip tools read those mode bits wherever it was built
            zf.writestr(info, text.encode("utf-8"), zipfile.ZIP_DEFLATED)
    data = buf.getvalue()
    validate_package(data)
    return data


def export(
    slug: str,
    server: str,
    out: Path,
    content_root: Path | None = None,
    mastery: int = 80,
    locale: str = DEFAULT,
) -> Path:
    """Write the package for the lesson ``slug`` of the content under ``content_root`` to ``out``, its
    launch page in ``locale``."""
    from lesson.content.course import default_root, load_content

    content = load_content(content_root or default_root())
    lesson = content.lesson(slug)
    if lesson is None:
        known = ", ".join(item.meta.slug for item in content.lessons)
        if content.former(slug) is not None:
            # A package per lesson: a lesson that was split is exported as the lessons it became.
            raise ScormError(f"lesson {slug!r} was split into several lessons; export one package for each: {known}")
        raise ScormError(f"no lesson {slug!r}; the lessons are: {known}")
    data = build_package(slug, lesson.meta.title, server, mastery, locale)
    out = Path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
    except OSError as err:
        raise ScormOutputError(f"cannot write {out}: {err.strerror or err}") from err
    return out


# --- validation ---------------------------------------------------------------------------------


def _q(ns: str, tag: str) -> str:
    return f"{{{ns}}}{tag}"


def _text(el: ET.Element | None) -> str:
    return (el.text or "").strip() if el is not None else ""


def validate_package(data: bytes) -> ET.Element:
    """Check a SCORM 1.2 zip; returns the parsed manifest or raises ScormError with every problem."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as err:
        raise ScormError(f"not a zip file: {err}") from err
    names = {n for n in zf.namelist() if not n.endswith("/")}
    if "imsmanifest.xml" not in names:
        raise ScormError("imsmanifest.xml must sit at the root of the package")
    for name in names:
        if name.startswith("/") or ".." in name.split("/"):
            raise ScormError(f"unsafe path in the zip: {name!r}")
    manifest = validate_manifest(zf.read("imsmanifest.xml"), names)
    return manifest


def validate_manifest(xml: bytes, names: Iterable[str]) -> ET.Element:
    """Check the manifest's structure against the package's file names; raises ScormError listing problems."""
    names = set(names)
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as err:
        raise ScormError(f"imsmanifest.xml is not well-formed XML: {err}") from err
    problems: list[str] = []
    if root.tag != _q(IMSCP, "manifest"):
        problems.append(f"the root element must be <manifest> in {IMSCP}, not {root.tag}")

    ids: dict[str, str] = {}

    def identifier(el: ET.Element, what: str) -> str:
        value = el.get("identifier", "")
        if not value:
            problems.append(f"{what} has no identifier")
        elif not _NCNAME.match(value):
            problems.append(f"{what} identifier {value!r} is not an XML ID (letters, digits, . _ -)")
        elif value in ids:
            problems.append(f"identifier {value!r} is used twice ({ids[value]} and {what})")
        else:
            ids[value] = what
        return value

    identifier(root, "the manifest")
    metadata = root.find(_q(IMSCP, "metadata"))
    if _text(metadata.find(_q(IMSCP, "schema")) if metadata is not None else None) != "ADL SCORM":
        problems.append("<metadata><schema> must be 'ADL SCORM'")
    if _text(metadata.find(_q(IMSCP, "schemaversion")) if metadata is not None else None) != "1.2":
        problems.append("<metadata><schemaversion> must be '1.2'")

    resources_el = root.find(_q(IMSCP, "resources"))
    resources: dict[str, ET.Element] = {}
    listed: set[str] = {"imsmanifest.xml"}
    if resources_el is None:
        problems.append("<resources> is missing")
    else:
        for res in resources_el.findall(_q(IMSCP, "resource")):
            rid = identifier(res, "a resource")
            resources[rid] = res
            if res.get("type") != "webcontent":
                problems.append(f"resource {rid!r}: type must be 'webcontent'")
            kind = res.get(_q(ADLCP, "scormtype"))
            if kind not in ("sco", "asset"):
                problems.append(f"resource {rid!r}: adlcp:scormtype must be 'sco' or 'asset', not {kind!r}")
            href = res.get("href")
            if href is not None and href.split("?")[0].split("#")[0] not in names:
                problems.append(f"resource {rid!r}: href {href!r} is not in the package")
            for f in res.findall(_q(IMSCP, "file")):
                fhref = f.get("href", "")
                listed.add(fhref)
                if fhref not in names:
                    problems.append(f"resource {rid!r}: file {fhref!r} is not in the package")
            if href is not None and href.split("?")[0] not in {f.get("href") for f in res.findall(_q(IMSCP, "file"))}:
                problems.append(f"resource {rid!r}: its href {href!r} is not listed as one of its <file>s")
        for res in resources.values():
            for dep in res.findall(_q(IMSCP, "dependency")):
                if dep.get("identifierref") not in resources:
                    problems.append(f"dependency {dep.get('identifierref')!r} names no resource")
    unlisted = sorted(names - listed)
    if unlisted:
        problems.append(f"files in the package that no resource lists: {', '.join(unlisted)}")

    orgs_el = root.find(_q(IMSCP, "organizations"))
    if orgs_el is None:
        problems.append("<organizations> is missing")
    else:
        orgs = orgs_el.findall(_q(IMSCP, "organization"))
        if not orgs:
            problems.append("<organizations> holds no <organization>")
        org_ids = {identifier(org, "an organization") for org in orgs}
        default = orgs_el.get("default")
        if default is not None and default not in org_ids:
            problems.append(f"organizations default={default!r} names no organization")
        for org in orgs:
            if not _text(org.find(_q(IMSCP, "title"))):
                problems.append(f"organization {org.get('identifier')!r} has no <title>")
            items = org.findall(f".//{_q(IMSCP, 'item')}")
            if not items:
                problems.append(f"organization {org.get('identifier')!r} has no <item>")
            for item in items:
                iid = identifier(item, "an item")
                title = _text(item.find(_q(IMSCP, "title")))
                if not title:
                    problems.append(f"item {iid!r} has no <title>")
                elif len(title) > 200:
                    problems.append(f"item {iid!r}: <title> is over SCORM 1.2's 200 characters")
                ref = item.get("identifierref")
                leaf = item.find(_q(IMSCP, "item")) is None
                if leaf and ref is None:
                    problems.append(f"item {iid!r} launches nothing (a leaf item needs identifierref)")
                if ref is not None:
                    res = resources.get(ref)
                    if res is None:
                        problems.append(f"item {iid!r}: identifierref {ref!r} names no resource")
                    elif res.get("href") is None:
                        problems.append(f"item {iid!r}: resource {ref!r} has no href to launch")
                mastery = _text(item.find(_q(ADLCP, "masteryscore")))
                if mastery:
                    try:
                        ok = 0 <= float(mastery) <= 100
                    except ValueError:
                        ok = False
                    if not ok:
                        problems.append(f"item {iid!r}: adlcp:masteryscore must be a number 0..100, not {mastery!r}")
        if not any(r.get(_q(ADLCP, "scormtype")) == "sco" for r in resources.values()):
            problems.append("no resource is a SCO (adlcp:scormtype='sco'): nothing would report to the LMS")
    if problems:
        raise ScormError("imsmanifest.xml: " + "; ".join(problems))
    return root
