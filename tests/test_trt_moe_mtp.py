"""The silicon sample's TensorRT-LLM DeepSeek-R1 runs that used MTP speculative decoding
(InferenceX's MTP sweeps, docs/validation/aiconfigurator_silicon_mtp.csv written by
tools/silicon_mtp_rows.py) and the MTP decode step they are predicted with
(calc/reports/mtp_decode.py; issue 20, TensorRT-LLM MTP round)."""

from __future__ import annotations

import csv
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.steps import step_of
from calc.reports.mtp_decode import MTP_ACCEPTANCE, draft_pass_s, mtp_decode
from calc.reports.speculative import verify_step_time_s
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parent.parent
MTP_CSV = ROOT / "docs" / "validation" / "aiconfigurator_silicon_mtp.csv"


@pytest.fixture(scope="module")
def vs():
    return load_script("bench/validation_serving.py")


@pytest.fixture(scope="module")
def rows(vs):
    return {r.id: r for r in vs.rows()}


def _dsr1_b200(tp=8, ep=1):
    return Deployment.build(load_model("deepseek-r1"), load_hardware("b200"), tp=tp, ep=ep,
                            weight_dtype="nvfp4", kv_dtype="fp8",
                            engine=EngineSettings(name="trtllm"))  # fmt: skip


def test_tokens_a_step_at_deepseek_v3_measured_acceptance_by_hand():
    assert MTP_ACCEPTANCE == 0.85  # DeepSeek-V3 Technical Report: 85-90%, the low end
    dep = _dsr1_b200()
    # γ = 3: (1 − 0.85^4) / (1 − 0.85) = (1 − 0.52200625) / 0.15 = 3.186625 tokens a step
    assert mtp_decode(dep, batch=4, ctx=1536, draft_tokens=3).tokens_per_step == pytest.approx(
        3.186625)
    # γ = 1 (InferenceX's attention-DP runs): (1 − 0.85^2) / 0.15 = 1 + 0.85 = 1.85
    assert mtp_decode(dep, batch=4, ctx=1536, draft_tokens=1).tokens_per_step == pytest.approx(
        1.85)


def test_mtp_step_is_one_verify_pass_and_gamma_draft_passes():
    dep = _dsr1_b200()
    spec = mtp_decode(dep, batch=16, ctx=1536, draft_tokens=3)
    dec = step_of(dep, batch=16, ctx=1536)
    verify = verify_step_time_s(dep, "expected", batch=16, ctx=1536, gamma=3)
    head = sum(float(o.time_s) for o in dec.ops if o.name in ("lm_head", "embedding"))
    # a draft pass: the decode step's mean layer over DeepSeek-R1's 61 layers, plus lm_head
    draft = (float(dec.time_s) - head) / 61 + head
    assert draft_pass_s(dec, 61) == pytest.approx(draft)
    assert spec.step_s == pytest.approx(float(verify) + 3 * draft)
    # the verify pass (4 tokens a sequence) costs more than a plain decode step, less than four
    assert float(dec.time_s) < float(verify) < 4 * float(dec.time_s)
    # so the time per output token falls below the plain step's (DeepSeek-R1 decode at batch 16
    # reads its experts' weights whatever the extra tokens: MTP pays)
    assert spec.token_s == pytest.approx(spec.step_s / 3.186625)
    assert spec.token_s < float(dec.time_s)


def test_mtp_rows_file_is_the_deepseek_r1_trtllm_runs_of_three_sweeps(rows):
    with MTP_CSV.open() as f:
        listed = list(csv.DictReader(f))
    # InferenceX#392 (2026-01-14: 55 + 18), #632 (2026-02-05: 36 + 6), #642 (2026-02-06: 30 +
    # 16): 161 runs in kvcalc's rows
    assert len(listed) == 161
    sweeps = {("2026-01-14", "InferenceX#392"), ("2026-02-05", "InferenceX#632"),
              ("2026-02-06", "InferenceX#642")}  # fmt: skip
    for r in listed:
        row = rows[r["id"]]
        assert (r["measured"], r["sweep"]) in sweeps
        assert row.backend == "trtllm" and row.model == "deepseek-r1"
        # num_nextn_predict_layers: 1 under attention DP (kvcalc reads it as ep > tp), else 3
        assert row.mtp == int(r["mtp_draft_tokens"]) == (1 if row.ep > row.tp else 3)
        # the runs of #632 and #642 are the only ones of 1.2.0rc6.post3
        assert (row.release == "1.2.0rc6.post3") == (r["sweep"] != "InferenceX#392")
    # every other row runs without speculation
    assert sum(1 for r in rows.values() if r.mtp) == 161


def test_every_twin_pair_with_three_drafts_has_its_faster_run_in_an_mtp_sweep(rows):
    # runs alike in GPU, release, format, lengths, concurrency and layout but measured twice
    # with two TPOTs: the MTP run with 3 drafts is the faster (issue 20, MTP round: 1.28-2.15x).
    # With 1 draft under attention DP at 32 sequences a rank it need not be: H200 1024/8192 at
    # 256 requests, ..._tp8_ep8_2000 (MTP) 30.69 ms against ..._tp8_0_ep8_0_1238 30.40 ms
    groups: dict = {}
    for r in rows.values():
        if r.backend == "trtllm" and r.model.startswith("deepseek"):
            key = (r.hardware, r.release, r.fmt, r.isl, r.osl, r.concurrency, r.tp, r.ep)
            groups.setdefault(key, []).append(r)
    pairs = 0
    for group in groups.values():
        spec = [r for r in group if r.mtp == 3]
        plain = [r for r in group if not r.mtp]
        for a in spec:
            for b in plain:
                pairs += 1
                assert a.tpot_s < b.tpot_s, (a.id, b.id)
    assert pairs >= 20


def test_an_mtp_run_is_predicted_faster_than_the_same_run_without(vs, rows):
    row = rows["2026_03_25_deepseek_r1_b200_sxm_trtllm_fp4_agg_1024x1024_c32_tp8_0_ep8_0_973"]
    assert row.mtp == 3
    spec, plain = vs.predict(row), vs.predict(replace(row, mtp=0))
    assert spec.tpot_s < plain.tpot_s
    # the step a new request joins is the whole MTP step, longer than a plain one
    assert spec.ttft_s > plain.ttft_s


def test_the_tool_flags_runs_by_sweep_day_gpu_and_format(tmp_path, monkeypatch):
    tool = load_script("tools/silicon_mtp_rows.py")
    ids = ("a", "b", "c", "d", "e")
    kv = tmp_path / "kv.csv"
    kv.write_text("id\n" + "\n".join(ids) + "\n")
    monkeypatch.setattr(sys.modules["silicon_rows"], "KVCALC_ROWS", kv)  # the shared reader
    head = "id,silicon_data_source,backend,model_path,system,gemm_quant_mode,attention_dp_size"
    src = "source_file=x.csv; measured={}T00:00:00Z; wip=False"
    sample = tmp_path / "sample.csv"
    sample.write_text("\n".join([
        head,
        # #642's day, B200 NVFP4, attention TP: 3 drafts
        f"a,{src.format('2026-02-06')},trtllm,deepseek-ai/DeepSeek-R1,b200_sxm,nvfp4,1",
        # #392's day, H200 fp8 under attention DP (8 ranks): 1 draft
        f"b,{src.format('2026-01-14')},trtllm,deepseek-ai/DeepSeek-R1,h200_sxm,fp8,8",
        # #632's day but NVFP4: #632 changed the fp8 configuration only
        f"c,{src.format('2026-02-05')},trtllm,deepseek-ai/DeepSeek-R1,b200_sxm,nvfp4,1",
        # gpt-oss swept on #632's day (InferenceX#639): no MTP
        f"d,{src.format('2026-02-05')},trtllm,openai/gpt-oss-120b,b200_sxm,fp8,1",
        # a plain sweep's day
        f"e,{src.format('2026-01-29')},trtllm,deepseek-ai/DeepSeek-R1,b200_sxm,fp8,1",
    ]) + "\n")  # fmt: skip
    assert tool.mtp_rows(sample) == [
        ("a", 3, "2026-02-06", "InferenceX#642"),
        ("b", 1, "2026-01-14", "InferenceX#392"),
    ]
