"""Which model's vectors searches read, and the switch to a newly configured model (issue 29).

A paper may hold vectors of two models while the embeddings stage re-embeds the archive after
``SEMANTIC_MODEL`` changed. Every query embeds its text with the model named here and reads
only that model's rows, so two models' vectors never meet in one ranking; the name moves to
the configured model in the first full run that finds it covering every paper the old model
covers, and the old rows go :data:`SWITCH_GRACE` seconds later.
"""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta

from django.core.cache import cache
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from .embedders import Embedder, backend_for_model, embedder_name, get_embedder
from .models import EmbeddingState, PaperEmbedding
from .schema import model_indexes_drop_except

logger = logging.getLogger(__name__)

# Seconds the name is kept in each process's cache (read on every semantic search).
CACHE_SECONDS = 60
# Seconds between the switch and the deletion of the old model's rows: longer than
# CACHE_SECONDS, so no process still searching the old model finds its rows gone.
SWITCH_GRACE = 300
# Old rows deleted per statement (each its own transaction: the table is never locked long).
DELETE_BATCH = 20_000


def _cache_key() -> str:
    # The configured model is part of the key: a process (a test) that switches models by
    # settings never reads another configuration's answer.
    # Hashed: model names hold spaces, which Django's cache warns of (memcached refuses them).
    configured = hashlib.sha256((embedder_name() or "-").encode()).hexdigest()[:16]
    return f"wove:semantic:search-model:{configured}"


def search_model() -> str:
    """The model whose vectors searches read (a stored ``PaperEmbedding.model`` name).

    The :class:`~semantic.models.EmbeddingState` row's; without one (an archive embedded
    before issue 29, or only by partial runs), the newest vector's model, recorded as the row;
    with no vectors at all, the configured model. '' when none is configured or installed
    and nothing is stored. Kept :data:`CACHE_SECONDS` in Django's cache.
    """
    key = _cache_key()
    found = cache.get(key)
    if found is not None:
        return found
    state = EmbeddingState.objects.filter(pk=1).first()
    if state is not None:
        found = state.search_model
    else:
        # Embedded before issue 29 (one model), or only by partial runs: the newest vector's
        # model, read down the primary key (no pass over the table in a page's request).
        newest = PaperEmbedding.objects.order_by("-pk").values_list("model", flat=True).first()
        if newest is None:
            return embedder_name() or ""  # nothing stored: not kept, the first vectors decide
        found = EmbeddingState.objects.get_or_create(pk=1, defaults={"search_model": newest})[0].search_model
    cache.set(key, found, CACHE_SECONDS)
    return found


def search_embedder() -> Embedder | None:
    """The loaded embedder of :func:`search_model` (the configured one, or the previous one
    while the archive is re-embedded), or None when it cannot load here (see
    :func:`semantic.embedders.embedder_error`) or semantic search is turned off
    (``SEMANTIC_MODEL=none``: stored vectors are then not read either)."""
    configured = embedder_name()
    if configured is None:
        return get_embedder()  # turned off or not installed: None, with the reason recorded
    model = search_model()
    if model in ("", configured):
        return get_embedder()
    backend = backend_for_model(model)
    if backend is None:
        # Vectors of a model this code no longer has: nothing can embed a query for them.
        logger.warning("searches read vectors of %r, a model not installed here", model)
        return None
    return get_embedder(backend)


def switch_when_covered(model: str) -> dict:
    """After a full embeddings run of ``model``: make it the search model when it covers every
    paper the search model covers (one anti-join over the unique (paper, model) index, run
    only while they differ), and drop other models' rows once the switch is
    :data:`SWITCH_GRACE` seconds old. Papers with no vector of either (an empty abstract and
    title) do not hold the switch back. Once the old rows are gone ``switched_at`` is cleared,
    so a steady archive's runs never look for other models' rows again (that look reads the
    whole table: it has no index by model alone).

    Returns ``{"search_model", "switched": bool, "removed": rows of old models deleted}``.
    Idempotent; safe beside searches (they read the name, then one model's rows).
    """
    result = {"search_model": model, "switched": False, "removed": 0}
    if not model:
        return result
    with transaction.atomic():
        # A first row counts as a switch: rows of a model embedded before it are cleared once.
        state, created = EmbeddingState.objects.select_for_update().get_or_create(
            pk=1, defaults={"search_model": model, "switched_at": timezone.now()}
        )
        if state.search_model != model and not _uncovered(old=state.search_model, new=model):
            logger.info("searches now read %s vectors (were %s)", model, state.search_model)
            state.search_model, state.switched_at = model, timezone.now()
            state.save(update_fields=["search_model", "switched_at"])
            result["switched"] = True
    if created or result["switched"]:
        cache.delete(_cache_key())
    result["search_model"] = state.search_model
    if (
        state.search_model == model
        and state.switched_at is not None
        and timezone.now() - state.switched_at >= timedelta(seconds=SWITCH_GRACE)
    ):
        result["removed"] = _delete_other_models(model)
        model_indexes_drop_except(model)  # their graphs, now empty
        EmbeddingState.objects.filter(pk=1, search_model=model).update(switched_at=None)
    return result


def _uncovered(*, old: str, new: str) -> bool:
    """Whether a live paper has a vector of ``old`` and none of ``new``."""
    newer = PaperEmbedding.objects.filter(paper=OuterRef("paper"), model=new)
    return PaperEmbedding.objects.filter(model=old, paper__deleted=False).filter(~Exists(newer)).exists()


def _delete_other_models(model: str) -> int:
    removed = 0
    while True:
        ids = list(PaperEmbedding.objects.exclude(model=model).values_list("pk", flat=True)[:DELETE_BATCH])
        if not ids:
            return removed
        removed += PaperEmbedding.objects.filter(pk__in=ids).delete()[0]


def forget_search_model() -> None:
    """Drop this configuration's cached name (tests that change models)."""
    cache.delete(_cache_key())
