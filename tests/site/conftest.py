"""Fixtures for the public site's tests: the real sample loaded once per module, a small
set of linked records (a researcher, an institution), and the real-browser fixtures."""

from __future__ import annotations

import copy

import pytest

from tests.conftest import FIXTURES, SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

OAI = FIXTURES / "arxiv" / "oai"


def _wipe() -> None:
    """Delete what the module fixture wrote, child tables first, in plain SQL (the ORM's
    cascade collector takes seconds over 2,800 papers)."""
    from django.db import connection

    from institutions.models import AuthorAffiliation, Institution, InstitutionName
    from papers.models import (
        ArxivFetch,
        Collaboration,
        HarvestRun,
        Paper,
        PaperAuthor,
        PaperCollaboration,
        PaperVersion,
    )
    from researchers.models import Authorship, Researcher

    models = [AuthorAffiliation, InstitutionName, Institution, Authorship, Researcher, ArxivFetch]
    models += [PaperCollaboration.members.through, PaperCollaboration, Collaboration]
    models += [PaperAuthor, PaperVersion, Paper, HarvestRun]
    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f"DELETE FROM {connection.ops.quote_name(model._meta.db_table)}")


@pytest.fixture(scope="module")
def site_sample(django_db_setup, django_db_blocker):
    """The whole real sample (2,800 papers) harvested once for the module, with Andrew
    Strominger linked as a researcher on 0801.4566 and the University of Tokyo linked to
    the first author of 0801.4614; removed again when the module ends."""
    from institutions.models import AuthorAffiliation, Institution
    from papers import harvest
    from papers.models import Paper
    from researchers.models import Authorship, Researcher

    with django_db_blocker.unblock():
        _wipe()
        harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
        harvest.harvest_kaggle(path=SAMPLE_KAGGLE)
        paper = Paper.objects.get(arxiv_id="0801.4566")
        slot = paper.authors.get(position=3)
        strominger = Researcher.objects.create(display_name="Andrew Strominger", paper_count=1)
        Authorship.objects.create(
            slot=slot,
            paper=paper,
            researcher=strominger,
            method="editor",
            confidence=1.0,
            block="a strominger",
        )
        other = Paper.objects.get(arxiv_id="0801.4614")
        tokyo = Institution.objects.create(
            ror_id="057zh3y96",
            name="The University of Tokyo",
            country_code="JP",
            country_name="Japan",
            city="Tokyo",
        )
        from institutions.models import InstitutionName
        from papers.affiliations import normalize

        for kind, value in (("ror_display", "The University of Tokyo"), ("acronym", "UTokyo")):
            InstitutionName.objects.create(
                institution=tokyo, kind=kind, value=value, normalized=normalize(value)
            )
        AuthorAffiliation.objects.create(
            slot=other.authors.get(position=1), institution=tokyo, source="string-match", confidence=0.9
        )
        yield {"strominger": strominger, "tokyo": tokyo}
        _wipe()


def read_as_plain_text(element) -> str:
    """The text of an lxml ``element`` as the plain Unicode reading of its TeX reads
    (feeds, JSON-LD, ``<title>``): each ``<math>`` as its ``alttext`` (the reading it was
    made from, since MathML's own text drops the roots' "√(…)" and the scripts' ``^``/``_``),
    a subscript as ``_x``, a superscript as ``^x``; whitespace collapsed."""
    element = copy.deepcopy(element)
    for math in list(element.iter("math")):
        alttext = math.get("alttext")
        assert alttext is not None, "a <math> without alttext"
        replacement = math.makeelement("span", {})
        replacement.text, replacement.tail = alttext, math.tail
        math.getparent().replace(math, replacement)
    for script in element.iter("sub", "sup"):
        script.text = ("_" if script.tag == "sub" else "^") + (script.text or "")
    return " ".join(element.text_content().split())


def site_pages():
    """The CMS pages the data migration creates, made again when a transactional test's
    flush (ours or another app's) has emptied the tables: runs the migration's own
    ``create_pages`` on the current models. Returns the site's root page."""
    import importlib

    from django.apps import apps
    from django.contrib.contenttypes.models import ContentType
    from wagtail.models import Locale, Page

    from cms.models import SiteRootPage

    if not SiteRootPage.objects.exists():
        locale = Locale.objects.first() or Locale.objects.create(language_code="en")
        if not Page.objects.filter(depth=1).exists():
            Page.objects.create(
                title="Root",
                draft_title="Root",
                slug="root",
                path="0001",
                depth=1,
                numchild=0,
                url_path="/",
                locale=locale,
                content_type=ContentType.objects.get_for_model(Page),
            )
        migration = importlib.import_module("cms.migrations.0002_site_pages")
        migration.create_pages(apps, None)
    return SiteRootPage.objects.get()


@pytest.fixture
def cms_pages(db):
    """The CMS pages (about, contact, privacy, developers): see :func:`site_pages`."""
    return site_pages()
