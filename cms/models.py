"""Wagtail page types: the site root, editorial content pages, developers, contact form.

Tree (created by migration 0002): Root › SiteRootPage (served by the Django home view at
``/``) › ``about``, ``contact``, ``privacy``, ``developers``. One template per page type
under ``templates/cms/``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from modelcluster.fields import ParentalKey
from wagtail.admin.panels import FieldPanel, FieldRowPanel, InlinePanel, MultiFieldPanel
from wagtail.contrib.forms.models import AbstractEmailForm, AbstractFormField
from wagtail.contrib.forms.panels import FormSubmissionsPanel
from wagtail.fields import RichTextField, StreamField
from wagtail.models import Page
from wagtail.search import index

from .blocks import BodyBlock


class SiteRootPage(Page):
    """The root of the wovepaper site in the page tree. ``/`` itself is the Django home view
    (search box, latest papers, counts); serving this page redirects there."""

    parent_page_types = ["wagtailcore.Page"]
    subpage_types = ["cms.ContentPage", "cms.DevelopersPage", "cms.ContactPage"]
    max_count = 1

    def serve(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        return HttpResponseRedirect("/")


class ContentPage(Page):
    """An editorial page (about, privacy): an introduction and a body of blocks."""

    eyebrow = models.CharField(max_length=60, blank=True, help_text="Small label above the title")
    intro = models.TextField(blank=True, help_text="One or two sentences under the title")
    body = StreamField(BodyBlock(), blank=True, use_json_field=True)

    search_fields = [*Page.search_fields, index.SearchField("intro"), index.SearchField("body")]
    content_panels = [*Page.content_panels, FieldPanel("eyebrow"), FieldPanel("intro"), FieldPanel("body")]
    parent_page_types = ["cms.SiteRootPage"]
    subpage_types: list[str] = []
    template = "cms/content_page.html"


class DevelopersPage(ContentPage):
    """The developers' page: the API explained with example calls (code blocks), linking
    ``/openapi.json`` and the interactive docs."""

    openapi_url = models.CharField(max_length=200, default="/openapi.json")
    docs_url = models.CharField(max_length=200, default="/api/docs")

    content_panels = [
        *ContentPage.content_panels,
        FieldRowPanel([FieldPanel("openapi_url"), FieldPanel("docs_url")], heading="API links"),
    ]
    template = "cms/developers_page.html"


# A field people never see (off-screen, skipped by keyboard and screen readers); bots fill it.
HONEYPOT_FIELD = "website"


class ContactFormField(AbstractFormField):
    """A field of the contact form (label, type, required, help text), ordered."""

    page = ParentalKey("ContactPage", on_delete=models.CASCADE, related_name="form_fields")


class ContactPage(AbstractEmailForm):
    """The contact form: every submission is stored (see the page's submissions in the
    admin) and emailed to ``to_address``, or to ``settings.SITE_OWNER_EMAIL`` when that is
    empty. Mail goes through ``EMAIL_BACKEND`` (console by default, SMTP when configured)."""

    intro = RichTextField(blank=True, features=["bold", "italic", "link"])
    thank_you_text = RichTextField(blank=True, features=["bold", "italic", "link"])

    content_panels = [
        FormSubmissionsPanel(),
        *AbstractEmailForm.content_panels,
        FieldPanel("intro"),
        InlinePanel("form_fields", label="Form fields"),
        FieldPanel("thank_you_text"),
        MultiFieldPanel(
            [
                FieldRowPanel([FieldPanel("from_address"), FieldPanel("to_address")]),
                FieldPanel("subject"),
            ],
            heading="Email",
        ),
    ]
    parent_page_types = ["cms.SiteRootPage"]
    subpage_types: list[str] = []
    max_count = 1
    template = "cms/contact_page.html"
    landing_page_template = "cms/contact_page_landing.html"

    def recipients(self) -> list[str]:
        """Addresses the submission is mailed to (``to_address`` split on commas, else the
        site owner's)."""
        addresses = [a.strip() for a in (self.to_address or "").split(",") if a.strip()]
        return addresses or [settings.SITE_OWNER_EMAIL]

    def process_form_submission(self, form):
        """Store the submission, then mail it to :meth:`recipients`. Returns the stored
        ``FormSubmission``, or ``None`` for a bot that filled the hidden ``website`` field
        (it sees the thank-you page; nothing is stored or sent)."""
        if form.data.get(HONEYPOT_FIELD):
            return None
        submission = self.get_submission_class().objects.create(form_data=form.cleaned_data, page=self)
        from wagtail.admin.mail import send_mail

        send_mail(
            self.subject or "wovepaper contact form",
            self.render_email(form),
            self.recipients(),
            self.from_address or settings.DEFAULT_FROM_EMAIL,
        )
        return submission
