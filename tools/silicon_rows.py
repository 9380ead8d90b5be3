"""What tools/silicon_mtp_rows.py and tools/silicon_moe_backend_rows.py share: the TensorRT-LLM
DeepSeek-R1 runs of aiconfigurator's silicon_sample.csv that kvcalc's validation keeps, each with
the day its ``silicon_data_source`` says it was measured, and the command line that writes a row
mapping beside docs/validation/aiconfigurator_silicon_agg.csv. A dev module (standard library
only)."""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KVCALC_ROWS = ROOT / "docs" / "validation" / "aiconfigurator_silicon_agg.csv"


def deepseek_trt_runs(sample: Path) -> Iterator[tuple[dict, str]]:
    """(run, measured date) of every TensorRT-LLM DeepSeek-R1 run of ``sample`` (the upstream
    CSV) that kvcalc's rows keep and whose source states the day it was measured."""
    return kept_runs(sample, "trtllm", "DeepSeek-R1")


def kept_runs(sample: Path, backend: str, model: str) -> Iterator[tuple[dict, str]]:
    """(run, measured date) of every ``backend`` run of a model path holding ``model`` in
    ``sample`` (the upstream CSV) that kvcalc's rows keep and whose source states the day it
    was measured."""
    with KVCALC_ROWS.open() as f:
        keep = {r["id"] for r in csv.DictReader(f)}
    with sample.open() as f:
        runs = list(csv.DictReader(f))
    for r in runs:
        if r["id"] not in keep or r["backend"] != backend or model not in r["model_path"]:
            continue
        m = re.search(r"measured=(\d{4}-\d\d-\d\d)", r["silicon_data_source"])
        if m is not None:
            yield r, m.group(1)


def agg_runs(sample: Path) -> Iterator[dict]:
    """Every aggregated-serving run of ``sample`` (the upstream CSV) that kvcalc's rows keep."""
    with KVCALC_ROWS.open() as f:
        keep = {r["id"] for r in csv.DictReader(f)}
    with sample.open() as f:
        for run in csv.DictReader(f):
            if run["id"] in keep and run["mode"] == "agg":
                yield run


def attention_dp(run: dict) -> bool:
    """Whether the run spread attention over data-parallel ranks."""
    return int(run["attention_dp_size"] or 1) > 1


def write_mapping(argv: list[str], script: str, out: Path, header: tuple[str, ...],
                  rows_of: Callable[[Path], list[tuple]], what: str) -> int:  # fmt: skip
    """The command line of a mapping script: ``argv`` names the upstream CSV; writes ``out``."""
    if len(argv) != 1:
        print(f"usage: python tools/{script} SILICON_SAMPLE_CSV", file=sys.stderr)
        return 2
    rows = rows_of(Path(argv[0]))
    with out.open("w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    print(f"{len(rows)} {what} -> {out.relative_to(ROOT)}")
    return 0
