"""wove.cpu: the CPU's 8-bit dot product, read from /proc/cpuinfo, chooses the default
embedding model (issue 29)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from wove.cpu import cpu_flags, default_semantic_model, has_int8_dot_product

FIXTURES = Path(__file__).parent / "fixtures" / "cpuinfo"


def test_a_xeon_with_amx_has_an_int8_dot_product():
    flags = cpu_flags((FIXTURES / "xeon_amx_processor0.txt").read_text())
    assert {"avx2", "avx512_vnni", "avx_vnni", "amx_int8"} <= flags and "fpu" in flags
    assert len(flags) == 108
    assert has_int8_dot_product(flags)
    assert default_semantic_model(flags) == "minilm-int8"


def test_a_cpu_without_vnni_or_amx_has_none():
    flags = cpu_flags((FIXTURES / "edited_xeon_amx_processor0_no_int8_dot_product.txt").read_text())
    assert "avx512f" in flags and "avx512_bf16" in flags and len(flags) == 105
    assert not has_int8_dot_product(flags)
    assert default_semantic_model(flags) == "minilm-fp32"


def test_no_flags_line_is_no_flags():
    assert cpu_flags("processor\t: 0\nmodel name\t: something\n") == frozenset()
    assert not has_int8_dot_product(frozenset())


def test_the_default_model_follows_this_machine():
    """Unset, SEMANTIC_MODEL is the int8 model where this CPU has the instruction, else the
    float32 one; set, it is what the operator chose."""
    code = "from django.conf import settings; print(settings.SEMANTIC_MODEL)"
    env = {k: v for k, v in os.environ.items() if k != "SEMANTIC_MODEL"}
    env["DJANGO_SETTINGS_MODULE"] = "wove.settings"

    def configured(**extra) -> str:
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env={**env, **extra}
        )
        assert out.returncode == 0, out.stderr
        return out.stdout.strip().splitlines()[-1]

    expected = "minilm-int8" if has_int8_dot_product() else "minilm-fp32"
    assert configured() == expected
    assert configured(SEMANTIC_MODEL="minilm") == "minilm"
