"""Create the site's page tree with real content: the site root and /about, /contact,
/privacy, /developers (issue 7). Idempotent: pages that exist are left alone."""

import json
import uuid

from django.db import migrations

ROOT_PATH = "0001"
STEP = 4


def _p(html):
    return {"type": "paragraph", "value": html, "id": str(uuid.uuid4())}


def _h(text):
    return {"type": "heading", "value": text, "id": str(uuid.uuid4())}


def _code(code, language="shell", caption=""):
    return {
        "type": "code",
        "value": {"language": language, "caption": caption, "code": code},
        "id": str(uuid.uuid4()),
    }


def _callout(title, html):
    return {"type": "callout", "value": {"title": title, "text": html}, "id": str(uuid.uuid4())}


ABOUT = [
    _p(
        "<p>wovepaper is a public archive of research papers harvested from "
        '<a href="https://arxiv.org/">arXiv</a>. It weaves three things together: the papers '
        "themselves, the <b>researchers</b> who wrote them, and the <b>institutions</b> those "
        "researchers work at. Everything here is free to browse and search, with no account.</p>"
    ),
    _h("What is in the archive"),
    _p(
        "<ul><li><b>Papers</b>: titles, abstracts, authors, categories, versions and licences, "
        "harvested from arXiv through its OAI-PMH interface and kept up to date every day. Full "
        "texts stay on arXiv: every paper page links to its arXiv abstract and PDF.</li>"
        "<li><b>Researchers</b>: author names on papers are matched to researcher identities, "
        "using ORCID iDs where a paper gives one and the Semantic Scholar and OpenAlex author "
        "records otherwise. Matching runs newest-first, so older work may not be attached to a "
        "profile yet.</li>"
        "<li><b>Institutions</b>: affiliations are matched to records of the "
        '<a href="https://ror.org/">Research Organization Registry</a> (ROR), so an '
        "institution has one page whatever the spelling of its name.</li>"
        "<li><b>Provenance</b>: each paper has a signed canonical record and a pith number, so "
        "anyone can verify that the metadata shown here is what was harvested.</li></ul>"
    ),
    _h("How to use it"),
    _p(
        '<p>Use <a href="/search">search</a> for titles, abstracts and author names; quotes '
        "search a phrase, <code>OR</code> either word and a minus sign excludes a word. Filter by "
        "category, year, researcher or institution, and sort by relevance, date or citations. "
        'Every list has an <a href="/rss/latest.xml">RSS feed</a>, and every paper can be '
        "exported as BibTeX or RIS.</p>"
    ),
    _h("Curation"),
    _p(
        "<p>Automatic matching makes mistakes: two people with the same name can be merged, or "
        "one person split across records. Editors review these cases and merge or split "
        "researcher records; every change is logged and can be undone. If you see a wrong "
        'attribution, <a href="/contact">tell us</a>.</p>'
    ),
    _callout(
        "Not affiliated with arXiv",
        "<p>wovepaper is an independent project. Thank you to arXiv for use of its open access "
        "interoperability. Researcher data comes from Semantic Scholar (ODC-BY) and OpenAlex "
        "(CC0); institution data from ROR (CC0).</p>",
    ),
]

PRIVACY = [
    _p(
        "<p>This page explains what wovepaper records about visitors and why. In short: "
        "browsing and searching are anonymous, we use no advertising or third-party trackers, "
        "and every font, script and style is served from our own server.</p>"
    ),
    _h("When you browse"),
    _p(
        "<ul><li>Our web server keeps standard access logs (IP address, time, requested URL, "
        "user agent) for up to 30 days, to keep the service running and to stop abuse. They "
        "are not shared or used for profiling.</li>"
        "<li>We set no cookies for anonymous visitors, except a CSRF security cookie on pages "
        "with a form (the contact form, the offer to fetch a paper from arXiv), which protects "
        "what you submit.</li>"
        "<li>Search queries are not stored with anything that identifies you.</li></ul>"
    ),
    _h("Accounts"),
    _p(
        "<p>Browsing needs no account. If you create one to follow researchers, institutions or "
        "categories, we store:</p>"
        "<ul><li>your email address (and whether you verified it), a username derived from it, "
        "a hashed password (never the password itself), when you joined and last signed in;</li>"
        "<li>what you follow and since when;</li>"
        "<li>your digest choice (daily, weekly or off; weekly until you change it, and a digest "
        "is only sent when something you follow has new papers) and when we last sent one;</li>"
        "<li>the secret token of your private RSS feed, if you create one (revoking it deletes "
        "it);</li>"
        "<li>which papers each digest listed, when it was sent, and the mail server's last "
        "error, so that no paper is sent to you twice;</li>"
        "<li>a session record and cookies (session, CSRF) while you are signed in.</li></ul>"
        "<p>Sign-up and sign-in attempts are counted briefly by IP address and email address "
        "to stop abuse. Digests and account emails go through our mail provider, which sees "
        "your address. You can download everything we hold about your account as JSON "
        '(<a href="/accounts/export.json">export</a>) and delete your account at any time '
        '(<a href="/accounts/delete">delete</a>), which removes all of it at once.</p>'
    ),
    _h("The contact form"),
    _p(
        "<p>Messages sent through the contact form are stored so we can answer them and are "
        "emailed to the site owner. We keep them for up to one year, then delete them.</p>"
    ),
    _h("Researcher profiles"),
    _p(
        "<p>Researcher pages are built from public metadata: author names on arXiv papers and "
        "public records at ORCID, Semantic Scholar, OpenAlex and ROR. If you are a researcher "
        "and want a record corrected, merged or split, use the contact form.</p>"
    ),
    _h("Your rights"),
    _p(
        "<p>You may ask what data we hold about you, and ask us to correct or delete it. Write "
        'to us through the <a href="/contact">contact form</a>.</p>'
    ),
]

DEVELOPERS = [
    _p(
        "<p>Everything on wovepaper is available to programs. The JSON API covers papers, "
        "researchers, institutions and search; feeds and a sitemap list what is new; every "
        "paper exports as BibTeX and RIS. No key is needed for reading.</p>"
    ),
    _h("The JSON API"),
    _p(
        "<p>The API lives under <code>/api/v1/</code> and is described by an OpenAPI 3 schema "
        'at <a href="/openapi.json">/openapi.json</a>; the <a href="/api/docs">interactive '
        "docs</a> let you try every call in the browser. Every error has the same JSON shape, "
        "lists are paged with <code>page</code> and <code>size</code> (or a cursor for deep "
        "traversal), and responses carry ETags.</p>"
    ),
    _code("curl -s '{site}/api/v1/papers/arXiv:0801.4566v2'", caption="One paper, by any identifier form"),
    _code(
        "curl -s '{site}/api/v1/papers?q=%22dark+matter%22&sort=relevance&size=5'",
        caption="Full-text search over papers",
    ),
    _code(
        "curl -s '{site}/api/v1/papers?category=hep-th&sort=newest'",
        caption="The newest papers in a category",
    ),
    _code("curl -s '{site}/api/v1/researchers?q=strominger'", caption="Researchers by name, with their identities"),
    _code(
        "curl -s -X POST '{site}/api/v1/papers/batch' \\\n"
        "  -H 'Content-Type: application/json' \\\n"
        "  -d '{\"ids\": [\"0801.4566\", \"physics/0112006\"]}'",
        caption="Many papers in one request",
    ),
    _code(
        "import httpx\n\n"
        "r = httpx.get(\"{site}/api/v1/papers\", params={\"q\": \"dark matter\", \"size\": 10})\n"
        "for paper in r.json()[\"items\"]:\n"
        "    print(paper[\"arxiv_id\"], paper[\"title\"])",
        language="python",
        caption="From Python",
    ),
    _h("Feeds, sitemap and exports"),
    _p(
        '<ul><li><a href="/rss/latest.xml">/rss/latest.xml</a>: the latest papers (RSS 2.0); '
        "per category <code>/rss/category/&lt;code&gt;.xml</code>, per researcher "
        "<code>/rss/researchers/&lt;id&gt;.xml</code>.</li>"
        '<li><a href="/sitemap.xml">/sitemap.xml</a>: a sitemap index of every public paper, '
        "researcher and institution.</li>"
        "<li><code>/papers/&lt;arxiv-id&gt;/export.bib</code> and <code>export.ris</code>; for a "
        "researcher's whole list <code>/researchers/&lt;id&gt;/export.bib</code> and "
        "<code>export.ris</code>.</li>"
        '<li><a href="/llms.txt">/llms.txt</a>: guidance for automated readers.</li></ul>'
    ),
    _h("Provenance"),
    _p(
        "<p>Each paper has a signed canonical record. Fetch its bundle at "
        "<code>/pith/&lt;number&gt;/bundle.json</code> (also under "
        "<code>/.well-known/pith/</code>) and verify the ed25519 signatures with the public keys "
        "at <code>/.well-known/pith/keys.json</code>.</p>"
    ),
    _callout(
        "Rate limits",
        "<p>The API allows 120 requests a minute per client and says so in "
        "<code>X-RateLimit-Limit</code>, <code>-Remaining</code> and <code>-Reset</code> headers; a 429 answer carries <code>Retry-After</code>. Send a "
        "User-Agent with a contact address. For bulk work, use the batch endpoint and the "
        "sitemap rather than crawling HTML pages.</p>",
    ),
    _h("Licences"),
    _p(
        "<p>Paper metadata comes from arXiv; each paper's own licence is on its page and in the "
        "API. Researcher data: Semantic Scholar (ODC-BY) and OpenAlex (CC0). Institution data: "
        "ROR (CC0). Please credit wovepaper and these sources when you reuse the data.</p>"
    ),
]

CONTACT_INTRO = (
    "<p>Questions, corrections, a wrong attribution on a researcher page, or an idea for the "
    "API: write to us here. We usually answer within a few working days.</p>"
)
CONTACT_THANKS = (
    "<p>Thank you, your message has been sent. We will answer at the address you gave.</p>"
)
CONTACT_FIELDS = [
    ("Your name", "singleline", True, "", ""),
    ("Email", "email", True, "We only use it to answer you.", ""),
    (
        "Topic",
        "dropdown",
        True,
        "",
        "General question\nCorrection to a paper\nResearcher identity (merge or split)\nInstitution\nAPI and data\nPrivacy request",
    ),
    ("Link to the page concerned", "url", False, "Optional: the paper, researcher or institution page.", ""),
    ("Message", "multiline", True, "", ""),
]


def create_pages(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    Page = apps.get_model("wagtailcore", "Page")
    Site = apps.get_model("wagtailcore", "Site")
    Locale = apps.get_model("wagtailcore", "Locale")
    SiteRootPage = apps.get_model("cms", "SiteRootPage")
    ContentPage = apps.get_model("cms", "ContentPage")
    DevelopersPage = apps.get_model("cms", "DevelopersPage")
    ContactPage = apps.get_model("cms", "ContactPage")
    ContactFormField = apps.get_model("cms", "ContactFormField")
    # FormMixin.__init__ reads these class attributes, which historical models lack.
    ContactPage.template = "cms/contact_page.html"
    ContactPage.landing_page_template = "cms/contact_page_landing.html"

    if SiteRootPage.objects.exists():
        return
    locale = Locale.objects.order_by("pk").first() or Locale.objects.create(language_code="en")
    root = Page.objects.get(depth=1)

    def ctype(model):
        return ContentType.objects.get_or_create(app_label="cms", model=model._meta.model_name)[0]

    def next_child_path(parent):
        last = Page.objects.filter(path__startswith=parent.path, depth=parent.depth + 1).order_by("-path").first()
        number = int(last.path[-STEP:], 36) + 1 if last else 1
        return parent.path + _base36(number).rjust(STEP, "0")

    site_root = SiteRootPage.objects.create(
        title="wovepaper",
        draft_title="wovepaper",
        slug="wovepaper",
        content_type=ctype(SiteRootPage),
        path=next_child_path(root),
        depth=2,
        numchild=0,
        url_path="/wovepaper/",
        live=True,
        locale=locale,
        seo_title="wovepaper · research, woven together",
    )
    root.numchild = Page.objects.filter(path__startswith=root.path, depth=2).count()
    root.save(update_fields=["numchild"])

    def child(model, **fields):
        page = model.objects.create(
            content_type=ctype(model),
            path=next_child_path(site_root),
            depth=3,
            numchild=0,
            url_path=f"/wovepaper/{fields['slug']}/",
            live=True,
            locale=locale,
            draft_title=fields["title"],
            **fields,
        )
        site_root.numchild += 1
        Page.objects.filter(pk=site_root.pk).update(numchild=site_root.numchild)
        return page

    child(
        ContentPage,
        title="About wovepaper",
        slug="about",
        eyebrow="About",
        intro="Papers, researchers and institutions, woven together: an open archive of arXiv papers with researcher identities, ROR institutions and signed provenance.",
        body=json.dumps(ABOUT),
        search_description="What wovepaper is: an open archive of arXiv papers with matched researchers, ROR institutions and signed provenance.",
    )
    contact = child(
        ContactPage,
        title="Contact",
        slug="contact",
        intro=CONTACT_INTRO,
        thank_you_text=CONTACT_THANKS,
        to_address="",
        from_address="",
        subject="wovepaper contact form",
        search_description="Write to the wovepaper team: questions, corrections, researcher identities, the API.",
    )
    for order, (label, field_type, required, help_text, choices) in enumerate(CONTACT_FIELDS):
        ContactFormField.objects.create(
            page_id=contact.pk,
            sort_order=order,
            label=label,
            clean_name=label.lower().replace(" ", "_"),
            field_type=field_type,
            required=required,
            help_text=help_text,
            choices=choices,
            default_value="",
        )
    child(
        ContentPage,
        title="Privacy",
        slug="privacy",
        eyebrow="Privacy",
        intro="Browsing and searching wovepaper is anonymous. This page lists what little we record, and why.",
        body=json.dumps(PRIVACY),
        search_description="What wovepaper records about visitors, accounts and contact messages.",
    )
    child(
        DevelopersPage,
        title="Developers",
        slug="developers",
        eyebrow="Developers",
        intro="A JSON API, feeds, a sitemap and citation exports: everything on wovepaper is there for programs too.",
        body=json.dumps(DEVELOPERS),
        openapi_url="/openapi.json",
        docs_url="/api/docs",
        search_description="The wovepaper JSON API with example calls, feeds, sitemap, exports and rate limits.",
    )

    site = Site.objects.filter(is_default_site=True).first()
    if site is None:
        Site.objects.create(hostname="localhost", port=80, root_page_id=site_root.pk, is_default_site=True, site_name="wovepaper")
    else:
        old_root_id = site.root_page_id
        site.root_page_id = site_root.pk
        site.site_name = "wovepaper"
        site.save()
        # Wagtail's placeholder "Welcome" page is replaced by the site root.
        old = Page.objects.filter(pk=old_root_id, depth=2).exclude(pk=site_root.pk).first()
        if old is not None and old.content_type.model == "page":
            old.delete()
            root.numchild = Page.objects.filter(path__startswith=root.path, depth=2).count()
            root.save(update_fields=["numchild"])


def _base36(number):
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out = ""
    while True:
        number, rem = divmod(number, 36)
        out = digits[rem] + out
        if number == 0:
            return out


class Migration(migrations.Migration):
    dependencies = [
        ("cms", "0001_initial"),
        ("wagtailcore", "0098_apitoken"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_pages, migrations.RunPython.noop)]
