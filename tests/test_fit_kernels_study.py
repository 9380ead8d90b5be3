"""The per-expert MoE study of tools/fit_kernels.py (issue 20 round 9): its token-range
statistics and the docs section that ``--write`` keeps."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent


def _fit_kernels():
    pytest.importorskip("pandas")
    return load_script("tools/fit_kernels.py")


def test_token_ranges_split_rows_and_sign():
    fk = _fit_kernels()
    tokens = np.array([1.0, 32.0, 64.0, 1024.0, 2048.0, 4096.0])
    # measured / fitted: 1.1 and 0.9 below 64 tokens; 1.2, 1.4, 1.3 in 64-2,048; 0.5 above
    ratio = np.array([1.1, 0.9, 1.2, 1.4, 1.3, 0.5])
    out = fk._token_ranges(ratio, tokens)
    # 1-63: errors +0.1, -0.1 -> signed median 0.0, |error| median 0.1
    n, signed, abs_ = out["1-63"]
    assert n == 2 and signed == pytest.approx(0.0) and abs_ == pytest.approx(0.1)
    # 64-2048: errors +0.2, +0.4, +0.3 -> median +0.3 (the curve fast), |error| 0.3
    n, signed, abs_ = out["64-2048"]
    assert n == 3 and signed == pytest.approx(0.3) and abs_ == pytest.approx(0.3)
    # 2049+: error -0.5 (the curve slow)
    n, signed, abs_ = out[f"2049-{1 << 30}"]
    assert n == 1 and signed == pytest.approx(-0.5) and abs_ == pytest.approx(0.5)


def test_kernel_fits_page_holds_the_study():
    fk = _fit_kernels()
    text = (ROOT / "docs" / "kernel-fits.md").read_text()
    kept = fk._kept_study()
    assert kept.startswith(fk.STUDY_BEGIN) and kept.endswith(fk.STUDY_END)
    assert kept in text
    # a rewrite of the page by --write keeps it
    assert kept in fk.report([])
