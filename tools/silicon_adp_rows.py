"""Which of aiconfigurator's silicon-sample runs ran TensorRT-LLM's attention-DP balance
(``calc.serve.admission.adp_balance_wait_s``) and with which ``--max_num_tokens``: writes
docs/validation/aiconfigurator_silicon_adp.csv (id, timeout_iters, batching_wait_iters,
measured, rule, max_num_tokens), the row mapping ``bench/validation_serving.py`` reads (issue
20, adpbalance round; the budget column, trttrickle round).

A dev script, not part of kvcalc (standard library only). The runs: SemiAnalysisAI/InferenceX's
TensorRT-LLM sweeps in the sample (its dated exports ``source_file=2026-03-25.csv``,
``2026-04-06.csv`` and its results database ``db-dump/…``) that ran attention DP, as the record
states it or as the layout mapping lists it (docs/validation/aiconfigurator_silicon_layout.csv,
the runs measured 2025-11-02). The scripts (``benchmarks/``), read at every revision that
touched the lines, append to the engine's extra config, only when ``DP_ATTENTION`` is true:

- DeepSeek-R1, B200 NVFP4 / fp8 and H200 fp8, MTP or not (``dsr1_fp4_b200_trt_slurm.sh``,
  ``dsr1_fp8_b200_trt_slurm.sh``, ``dsr1_fp8_h200_trt_slurm.sh`` from @ec90f3fe7, 2025-09-18;
  the ``_mtp_slurm.sh`` ones from @bf3456727, 2026-01-15; the same files without ``_slurm``
  from @b0c4ed21b, 2026-01-22; unchanged through @6eecc0e66, 2026-02-03, and to the sample's
  last run, 2026-02-06): ``attention_dp_config: {batching_wait_iters: 0, enable_balance: true,
  timeout_iters: 60}``.
- gpt-oss-120b on B200 (``gptoss_fp4_b200_trt_slurm.sh`` from @28e5a01ea, 2025-09-19, its
  ``_docker.sh`` twin from @156fef3fc, 2025-12-17, ``gptoss_fp4_b200_trt.sh`` from @b0c4ed21b):
  ``attention_dp_config: {enable_balance: true}`` alone, so the release's defaults for the
  rest (``AttentionDpConfig``: timeout_iters 50, batching_wait_iters 10, unchanged since they
  came in NVIDIA/TensorRT-LLM#6061, release 1.0).

The token budget the same scripts pass (``--max_num_tokens``; trtllm-serve's chunked prefill
is off, so a context goes in only while its prompt and the generation tokens fit it), read at
every revision that touched the line (``git log -G MAX_NUM_TOKENS=``):

- DeepSeek-R1 without MTP (the three scripts above, from @ec90f3fe7): ``(CONC + ISL + 64)``
  rounded up to 64; from @64af5a771 (2026-01-21 23:05 UTC, "Adding evals after throughput
  benchmarks") at least 8,192 (``MAX_NUM_TOKENS > 8192 ? MAX_NUM_TOKENS : 8192``); no run of
  the sample is dated 2026-01-21.
- DeepSeek-R1 with MTP (the ``_mtp`` scripts, @bf3456727 to the sample's last run):
  ``((MTP + 1) × MAX_BATCH_SIZE + ISL + 64)`` rounded up to 64, MAX_BATCH_SIZE under attention
  DP ``CONC / TP`` (= the requests a rank), later ``CONC / 8`` (fp8, @5d517074c) and ``CONC /
  4`` (NVFP4, @0aae52d4c): written at CONC / DP, the smallest of them; the larger ones leave
  the same one 1k prompt an iteration beside a rank's generation tokens.
- gpt-oss-120b on B200: ``MAX_NUM_TOKENS=20000`` at every revision.

    python tools/silicon_adp_rows.py /path/to/aiconfigurator/silicon_sample.csv
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from silicon_rows import ROOT, agg_runs, attention_dp, write_mapping

OUT = ROOT / "docs" / "validation" / "aiconfigurator_silicon_adp.csv"
LAYOUT = ROOT / "docs" / "validation" / "aiconfigurator_silicon_layout.csv"
SOURCES = ("source_file=2026-03-25.csv", "source_file=2026-04-06.csv", "db-dump/")  # InferenceX
# model family -> (GPUs of the scripts read, first revision's date, (timeout_iters,
# batching_wait_iters) the scripts give the balance)
RULES = {
    "DeepSeek": (("b200_sxm", "h200_sxm"), "2025-09-18", (60, 0)),
    "gpt-oss": (("b200_sxm",), "2025-09-19", (50, 10)),  # enable_balance alone: the defaults
}


MTP = ROOT / "docs" / "validation" / "aiconfigurator_silicon_mtp.csv"
# the date from which the non-MTP DeepSeek scripts raise the budget to at least 8,192 (@64af5a771)
BUDGET_FLOOR_SINCE, BUDGET_FLOOR = "2026-01-22", 8192
GPT_OSS_BUDGET = 20000  # gptoss_fp4_b200_trt*.sh MAX_NUM_TOKENS


def _round_up_64(tokens: int) -> int:
    """The scripts' ``(x + 63) / 64 * 64``."""
    return -(-tokens // 64) * 64


def _mtp_drafts() -> dict[str, int]:
    """The MTP draft tokens of the runs the MTP mapping lists."""
    with MTP.open() as f:
        return {r["id"]: int(r["mtp_draft_tokens"]) for r in csv.DictReader(f)}


def budget_of(run: dict, measured: str, drafts: int, ranks: int) -> int:
    """The ``--max_num_tokens`` the run's script passed (module docstring): the benchmark's
    concurrency from the run's id (its ``cN``), the prompt length, the MTP draft tokens and the
    attention-DP ranks."""
    conc = int(re.search(r"_c(\d+)_", run["id"]).group(1))
    isl = int(run["isl"])
    if "gpt-oss" in run["model_path"]:
        return GPT_OSS_BUDGET
    if drafts:
        return _round_up_64((drafts + 1) * (conc // ranks) + isl + 64)
    budget = _round_up_64(conc + isl + 64)
    return max(budget, BUDGET_FLOOR) if measured >= BUDGET_FLOOR_SINCE else budget


def _ranks(run: dict, layout_dp: set[str]) -> int:
    """The run's attention-DP ranks: as stated (a stated DP of moe_tp × moe_ep beside moe_tp > 1
    read as moe_ep ranks, as bench/validation_serving.py reads it), or (the layout mapping's
    runs, stating none) every GPU of the TP."""
    stated, moe_tp = int(run["attention_dp_size"] or 1), int(run["moe_tp_size"] or 1)
    if stated > 1 and moe_tp > 1 and stated == moe_tp * int(run["moe_ep_size"] or 1):
        return stated // moe_tp
    return stated if stated > 1 else int(run["tp_size"])


def _measured(source: str) -> str | None:
    m = re.search(r"measured=(\d{4}-\d\d-\d\d)", source)
    return m.group(1) if m else None


def _layout_dp() -> set[str]:
    """The runs the layout mapping lists with attention DP (their records state none)."""
    with LAYOUT.open() as f:
        return {r["id"] for r in csv.DictReader(f) if r["attention_dp"] == "1"}


def rule_of(run: dict, layout_dp: set[str]) -> tuple[int, int, str] | None:
    """(timeout_iters, batching_wait_iters, rule) of an upstream run, or None where no script
    read set the balance (the engine's default: off)."""
    src = run["silicon_data_source"]
    measured = _measured(src)
    if (run["backend"] != "trtllm" or not src.startswith(SOURCES) or measured is None
            or not (attention_dp(run) or run["id"] in layout_dp)):  # fmt: skip
        return None
    for family, (gpus, since, (timeout, batching)) in RULES.items():
        if family in run["model_path"] and run["system"] in gpus and measured >= since:
            return timeout, batching, f"{run['system'][:4]} {family} trtllm attention DP"
    return None


def adp_rows(sample: Path) -> list[tuple]:
    """(id, timeout_iters, batching_wait_iters, measured, rule, max_num_tokens) of kvcalc's rows
    that a rule covers."""
    layout_dp, drafts = _layout_dp(), _mtp_drafts()
    out = []
    for run in agg_runs(sample):
        got = rule_of(run, layout_dp)
        if got is not None:
            measured = _measured(run["silicon_data_source"])
            budget = budget_of(run, measured, drafts.get(run["id"], 0), _ranks(run, layout_dp))
            out.append((run["id"], got[0], got[1], measured, got[2], budget))
    return sorted(out)


def main(argv: list[str]) -> int:
    return write_mapping(argv, "silicon_adp_rows.py", OUT,
                         ("id", "timeout_iters", "batching_wait_iters", "measured", "rule",
                          "max_num_tokens"),
                         adp_rows, "InferenceX attention-DP runs")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
