"""StreamField blocks for the site's editorial pages."""

from __future__ import annotations

from wagtail import blocks


class CodeBlock(blocks.StructBlock):
    """A code example shown verbatim (escaped, monospaced): an HTTP call, a shell line.
    ``{site}`` in the code stands for this site's address (``SITE_URL``) when shown, and
    ``{paper}``, ``{other_paper}``, ``{researcher_query}``, ``{ror_id}``, ``{pith}`` for records
    this archive holds, chosen when the page renders (``papers.examples.CODE_PLACEHOLDERS``):
    an example never names an identifier the archive may not hold."""

    language = blocks.ChoiceBlock(
        choices=[
            ("shell", "Shell"),
            ("http", "HTTP"),
            ("json", "JSON"),
            ("python", "Python"),
            ("text", "Text"),
        ],
        default="shell",
    )
    caption = blocks.CharBlock(required=False)
    code = blocks.TextBlock(
        help_text=(
            "Write {site} for this site's address, and {paper}, {other_paper}, {researcher_query}, "
            "{ror_id} or {pith} for a record the archive holds (filled in when the page is shown)."
        )
    )

    class Meta:
        icon = "code"
        template = "cms/blocks/code.html"


class CalloutBlock(blocks.StructBlock):
    """A highlighted note (a rule, a limit, a licence)."""

    title = blocks.CharBlock(required=False)
    text = blocks.RichTextBlock(features=["bold", "italic", "link", "code"])

    class Meta:
        icon = "warning"
        template = "cms/blocks/callout.html"


class BodyBlock(blocks.StreamBlock):
    """The body of an editorial page: headings, rich text, code examples, callouts."""

    heading = blocks.CharBlock(form_classname="title", icon="title", template="cms/blocks/heading.html")
    paragraph = blocks.RichTextBlock(
        features=["h3", "bold", "italic", "link", "ol", "ul", "code", "blockquote"], icon="pilcrow"
    )
    code = CodeBlock()
    callout = CalloutBlock()
