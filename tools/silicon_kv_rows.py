"""Which of aiconfigurator's silicon-sample runs stated an fp8 KV cache: writes
docs/validation/aiconfigurator_silicon_kv.csv (id, kv_cache_dtype, measured, rule), the row
mapping ``bench/validation_serving.py`` reads (issue 20/21, sgdsbw round).

A dev script, not part of kvcalc (standard library only). No record states a KV-cache dtype;
SGLang's own default leaves DeepSeek-R1's cache 16-bit (``--kv-cache-dtype auto``: the model's
dtype unless the checkpoint's quant config says ``kv_cache_quant_algo`` FP8; fp8_e4m3 by default
only for DeepSeek V3.2's DSA on SM 10.x and DeepSeek V4: sglang 0.5.9, 0.5.10.post1 and 0.5.16
wheels, ``server_args.py`` / ``arg_groups/overrides.py`` and ``model_runner.py`` /
``mem_cache/kv_cache_dtype.py`` ``configure_kv_cache_dtype``). The rule read in the runs' own
scripts (SemiAnalysisAI/InferenceX, bench/validation_sources.py):

- SGLang DeepSeek-R1 on B200 and B300 (benchmarks/dsr1_fp8_b200*.sh, dsr1_fp4_b200*.sh,
  single_node/dsr1_fp{4,8}_b{200,300}.sh and their fixed_seq_len copies): every revision on the
  main branch that launches the server passes ``--kv-cache-dtype fp8_e4m3`` (two revisions of
  2026-01-04/05 without it live on experimental branches only). The H200 scripts
  (dsr1_fp8_h200*.sh) never pass it: their rows keep the 16-bit cache.

The runs are InferenceX's as ``tools/silicon_admission_rows.py`` tells them (its dated exports
and the db-dump rows of lmsysorg/sglang images), without attention DP.

    python tools/silicon_kv_rows.py /path/to/aiconfigurator/silicon_sample.csv
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from silicon_admission_rows import _inferencex_sglang, _measured
from silicon_rows import ROOT, agg_runs, write_mapping

OUT = ROOT / "docs" / "validation" / "aiconfigurator_silicon_kv.csv"
FP8_KV_SYSTEMS = ("b200_sxm", "b300_sxm")  # the scripts that pass --kv-cache-dtype fp8_e4m3


def rule_of(run: dict) -> tuple[str, str] | None:
    """(kv_cache_dtype, rule) of an upstream run, or None where no script read states one."""
    if (run["backend"] != "sglang" or run["system"] not in FP8_KV_SYSTEMS
            or int(run["attention_dp_size"] or 1) > 1
            or not ("DeepSeek-R1" in run["model_path"] or run["id"].startswith("dsr1_"))
            or not _inferencex_sglang(run)):  # fmt: skip
        return None
    return "fp8_e4m3", f"{run['system']} sglang deepseek-r1, InferenceX script"


def kv_rows(sample: Path) -> list[tuple]:
    """(id, kv_cache_dtype, measured, rule) of kvcalc's rows that a rule covers."""
    out = []
    for run in agg_runs(sample):
        got = rule_of(run)
        if got is not None:
            out.append((run["id"], got[0], _measured(run["silicon_data_source"]) or "", got[1]))
    return sorted(out)


def main(argv: list[str]) -> int:
    return write_mapping(argv, "silicon_kv_rows.py", OUT,
                         ("id", "kv_cache_dtype", "measured", "rule"), kv_rows,
                         "InferenceX runs")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
