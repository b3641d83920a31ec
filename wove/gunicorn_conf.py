"""gunicorn hooks (``gunicorn wove.wsgi --config python:wove.gunicorn_conf``): per-worker warm-up."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

# gunicorn's maximum (its default is 4,094): a longer line than settings.MAX_REQUEST_LINE
# reaches Django, whose middleware answers 414 in the API's JSON Error shape; gunicorn's
# own 414 is an HTML page (issue 21).
limit_request_line = 8190
# Over that, gunicorn refuses the line itself: this worker (gthread, as --threads chose)
# answers that in the API's JSON Error shape too, not gunicorn's HTML.
worker_class = "wove.gunicorn_worker.JsonErrorThreadWorker"


def post_worker_init(worker: Any) -> None:
    """gunicorn hook: in each worker, after the fork and after ``wove.wsgi`` has loaded
    Django, before the worker accepts a connection. Pays what a worker's first page would:

    - always: the URL conf (importing every app's views and the API: 0.3-0.8 s) and the
      project's templates (compiled once per process by the cached loader);
    - with ``settings.SEMANTIC_PRELOAD`` on: the embedding model and one semantic query
      (:func:`semantic.preload.semantic_preload`: 15-25 s on two busy cores).

    Never before the fork: torch's thread pools do not survive one, and each worker needs
    its own model anyway. ``worker`` is gunicorn's worker (its ``log`` gets one line per
    step); ``None`` outside gunicorn. Never raises: what fails here fails, as before, in
    the request that needs it."""
    from django.conf import settings

    log = getattr(worker, "log", None) or logger
    started = time.monotonic()
    templates = _warm_site()
    log.info("warm-up: URL conf and %d templates in %.1f s", templates, time.monotonic() - started)
    if not settings.SEMANTIC_PRELOAD:
        return
    from semantic.preload import semantic_preload

    result = semantic_preload()
    if result.loaded:
        note = f" ({result.reason})" if result.reason else ""
        log.info("semantic preload: %s ready in %.1f s%s", result.model, result.seconds, note)
    else:  # get_embedder has already warned when a model should have loaded and did not
        log.info("semantic preload: no model (%s) after %.1f s", result.reason, result.seconds)


def _warm_site() -> int:
    """Import the URL conf and build its reverse map; compile every template under the
    engines' ``DIRS`` (the project's own, ``templates/``). Returns the templates compiled."""
    from django.template import engines
    from django.urls import reverse

    try:
        reverse("home")  # imports the URL conf and populates the reverse map
    except Exception:
        logger.exception("warm-up: the URL conf failed to load")
    compiled = 0
    for engine in engines.all():
        for folder in getattr(engine, "dirs", []):
            for path in sorted(Path(folder).rglob("*.html")):
                try:
                    engine.get_template(path.relative_to(folder).as_posix())
                    compiled += 1
                except Exception:
                    logger.exception("warm-up: template %s failed to compile", path)
    return compiled
