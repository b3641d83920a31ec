"""wove.pickling: the records a bulk harvest's parsing process sends to the writer arrive
whole, fields, author slots, versions and the precomputed slug alike."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from papers.oai import parse_oai_response
from papers.parse_ahead import record_slugs
from tests.conftest import SAMPLE_OAI_ARXIV, SAMPLE_OAI_RAW
from wove.pickling import pickled_as_tuple


@pytest.mark.parametrize("path", [SAMPLE_OAI_RAW, SAMPLE_OAI_ARXIV], ids=["arXivRaw", "arXiv"])
def test_a_parsed_page_survives_the_queue_between_processes(path):
    page = parse_oai_response(str(path))
    record_slugs(page)
    back = pickle.loads(pickle.dumps(page))
    assert back == page
    # The slug is left out of a record's equality; it must still arrive.
    assert [r.slug for r in back.records] == [r.slug for r in page.records]
    assert all(dataclasses.asdict(a) == dataclasses.asdict(b) for a, b in zip(back.records, page.records))
    # The sample's first arXivRaw record: 0801.3673 (one author, one version), checked by
    # reading the page.
    if path == SAMPLE_OAI_RAW:
        first = back.records[0]
        assert (first.arxiv_id, first.slug) == ("0801.3673", "variational-functionals-for-excited-states")
        assert ([a.keyname for a in first.authors], [v.version for v in first.versions]) == (["Bacalis"], [1])


def test_only_slots_dataclasses_of_init_fields_are_accepted():
    @dataclasses.dataclass
    class Plain:
        a: int
        b: int

    @dataclasses.dataclass(slots=True)
    class Derived:
        a: int
        b: int = dataclasses.field(init=False, default=0)

    @dataclasses.dataclass(slots=True)
    class Checked:
        a: int
        b: int

        def __post_init__(self) -> None:
            self.b = max(self.a, self.b)

    for cls in (Plain, Derived, Checked):
        with pytest.raises(TypeError, match=cls.__name__):
            pickled_as_tuple(cls)
