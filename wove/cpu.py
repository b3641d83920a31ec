"""What this machine's CPU can do, read from ``/proc/cpuinfo`` (Linux).

Issue 29: the default embedding model is an int8 model, fast and faithful only where the CPU
has an 8-bit dot-product instruction (VNNI or AMX). Without one, OpenVINO runs int8 through
AVX2's ``vpmaddubsw``, whose 16-bit sums saturate: on a Zen 3 machine the int8 model was slower
than the same weights in float32 (64-69 against 84-102 texts/s) and its recall@10 on the judged
queries fell outside the bound (BENCHMARKS.md, "Eleventh run"). ``wove.settings`` picks the
default ``SEMANTIC_MODEL`` with :func:`default_semantic_model`, and ``make install`` builds
that model's files.
"""

from __future__ import annotations

from pathlib import Path

# x86 flags of an 8-bit integer dot product in one instruction: AVX-512 VNNI (Cascade Lake,
# Zen 4), AVX-VNNI (Alder Lake and later) and AMX's int8 tiles (Sapphire Rapids).
INT8_DOT_PRODUCT_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "amx_int8"})


def cpu_flags(cpuinfo: str | None = None) -> frozenset[str]:
    """The first processor's feature flags in ``cpuinfo`` (the text of ``/proc/cpuinfo``,
    read when None): the ``flags`` line on x86, ``Features`` on Arm; empty when there is
    none or the file cannot be read (not Linux)."""
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace")
        except OSError:
            return frozenset()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            return frozenset(value.split())
    return frozenset()


def has_int8_dot_product(flags: frozenset[str] | None = None) -> bool:
    """True when the CPU (``flags``, default :func:`cpu_flags`) multiplies and sums 8-bit
    integers in one instruction, so an int8 model runs faster than float32 with the accuracy
    it was calibrated for. Arm's ``asimddp`` is not counted: OpenVINO's int8 on Arm is untried
    here, and float32 is right everywhere."""
    return bool((cpu_flags() if flags is None else flags) & INT8_DOT_PRODUCT_FLAGS)


def default_semantic_model(flags: frozenset[str] | None = None) -> str:
    """The ``SEMANTIC_MODEL`` backend (``semantic.embedders.BACKENDS``) used when none is
    set: ``"minilm-int8"`` where the CPU has an 8-bit dot product
    (:func:`has_int8_dot_product`), else ``"minilm-fp32"``."""
    return "minilm-int8" if has_int8_dot_product(flags) else "minilm-fp32"
