"""Pickling for the small slots dataclasses that cross a process boundary in bulk.

A bulk harvest parses pages in a second process (``papers.parse_ahead``) and sends each
page of 1,000 records, with their author slots and versions, through a
``multiprocessing`` queue. By default a slots dataclass pickles as its class plus a dict
of slot names to values: each object repeats every field name, and unpickling sets the
slots one by one. Measured on the sample's two pages (``bench/harvest_ingest.py``'s
records): 20-47 ms to pickle a page and 41-44 ms to unpickle it, as much as merging it.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import TypeVar

T = TypeVar("T")


def pickled_as_tuple(cls: type[T]) -> type[T]:
    """Class decorator: instances of the slots dataclass ``cls`` pickle as ``(cls, values)``,
    the values in field order, and unpickle through ``cls(*values)`` (its ``__init__``). The
    pickle is smaller and a page of records pickles 2-4 times and unpickles 1.3 times as
    fast. Raises ``TypeError`` unless ``cls`` is a ``@dataclass(slots=True)`` whose fields
    all go to ``__init__`` in slot order, with no ``__post_init__`` (it would run again)."""
    fields = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
    names = tuple(f.name for f in fields)
    if len(names) < 2 or getattr(cls, "__slots__", None) != names or not all(f.init for f in fields):
        raise TypeError(f"{cls.__name__} is not a slots dataclass of two or more init fields")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__, which unpickling would run again")
    values = operator.attrgetter(*names)

    def __reduce__(self) -> tuple:
        return (cls, values(self))

    cls.__reduce__ = __reduce__
    return cls
