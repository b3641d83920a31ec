"""The paginator of the site's HTML lists: one rule for a page number out of range."""

from __future__ import annotations

from django.core.paginator import EmptyPage, Page, PageNotAnInteger, Paginator


class SitePaginator(Paginator):
    """A :class:`~django.core.paginator.Paginator` whose :meth:`get_page` reads ``?page=`` as
    every list of the site does.

    The rule (README, "What you can open"): a page number below 1 or not a whole number gives
    page 1; a number past the last page gives the last page. Django's own ``get_page`` gives
    the last page for ``0`` and ``-1`` too, so ``/search?q=dark&page=-1`` showed the end of
    the list (issue 32). The API pages differently (``wove.pagination``: 422 below 1).
    """

    def number_of(self, number: object) -> int:
        """The page number ``number`` (a ``?page=`` value, any type) stands for under the
        rule above; never raises. A list that reads only as far as its page asks this first."""
        try:
            return self.validate_number(number)
        except PageNotAnInteger:
            return 1
        except EmptyPage:
            # validate_number read an integer: below 1, or past the end.
            return 1 if int(number) < 1 else self.num_pages

    def get_page(self, number: object) -> Page:
        """The :class:`~django.core.paginator.Page` for ``number`` (a ``?page=`` value, any
        type) under the rule above; never raises for a bad number."""
        return self.page(self.number_of(number))
