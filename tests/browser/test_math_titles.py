"""The sample's hardest titles in a real browser: MathML laid out by Chromium itself, with
a screenshot of each heading at 1280 px under ``var/test-artifacts/math/`` to look at."""

from __future__ import annotations

import pytest

from papers import harvest
from papers.models import Paper
from tests.conftest import ARTIFACT_DIRS_WRITTEN, ROOT, SAMPLE_KAGGLE, SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MATH_ARTIFACTS = ROOT / "var" / "test-artifacts" / "math"
# A root, a stray brace, a root without its backslash, an accent with a two-part subscript,
# nested scripts, chemical formulas in $_{…}$ pieces, a prescript, an operator in a script,
# braces around an accent, authors' own macros.
HARD_TITLES = {
    "0705.0889": "root",
    "0801.3763": "stray-brace",
    "0801.4375": "bare-sqrt",
    "0705.0070": "bar-subscript",
    "0705.0308": "nested-scripts",
    "0705.0621": "formula-pieces",
    "0801.3978": "prescript",
    "0801.3993": "otimes-script",
    "0705.0704": "braced-bar",
    "0704.0571": "babar-macros",
}


@pytest.fixture
def sample_titles(transactional_db):
    """The bundled sample, harvested."""
    harvest.harvest_files(paths=[SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW])
    harvest.harvest_kaggle(path=SAMPLE_KAGGLE)
    return {paper.arxiv_id: paper for paper in Paper.objects.filter(arxiv_id__in=HARD_TITLES)}


def test_hard_titles_are_laid_out_as_math_and_screenshot(live_server, page, sample_titles):
    assert set(sample_titles) == set(HARD_TITLES)
    MATH_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    ARTIFACT_DIRS_WRITTEN.append(MATH_ARTIFACTS)
    for arxiv_id, name in HARD_TITLES.items():
        page.goto(live_server.url + sample_titles[arxiv_id].get_absolute_url())
        heading = page.locator("h1")
        heading.screenshot(path=str(MATH_ARTIFACTS / f"{arxiv_id}-{name}.png"))
        # The heading fits its column at 1280 px: no math runs out of it.
        assert heading.evaluate("h => h.scrollWidth <= h.clientWidth"), arxiv_id
        # Chromium lays MathML out itself (computed display "math", inline), every <math> with a size.
        for box in heading.evaluate(
            "h => [...h.querySelectorAll('math')].map(m => "
            "[getComputedStyle(m).display, m.getBoundingClientRect().width])"
        ):
            assert box[0] == "math" and box[1] > 0, (arxiv_id, box)
    # 0705.0889: the root's sign spans its whole radicand, R_0^2 included.
    page.goto(live_server.url + sample_titles["0705.0889"].get_absolute_url())
    root = page.locator("h1 msqrt").bounding_box()
    last = page.locator("h1 msqrt msubsup").bounding_box()
    assert root["x"] < last["x"] and last["x"] + last["width"] <= root["x"] + root["width"] + 0.5
