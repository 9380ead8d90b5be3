"""An engine's own measured all-reduce curve (KernelCurves.allreduce_engine): TensorRT-LLM's
AUTO one-shot/two-shot stage timed by its own table's curve, the other engines by
``allreduce.custom`` (issue 20, trtallreduce round)."""

from __future__ import annotations

from pathlib import Path

import pytest

from calc.data.registry import load_hardware, load_model
from calc.deploy.deployment import Deployment, EngineSettings
from calc.deploy.steps import step_of

MIB = 2**20


def _allreduce(engine: str, version: str, hw: str = "h100", **counts) -> float:
    dep = Deployment.build(load_model("llama3-70b"), load_hardware(hw),
                           engine=EngineSettings(name=engine, version=version), tp=8)  # fmt: skip
    return next(o for o in step_of(dep, **counts).ops if o.name == "tp_allreduce").time_s


def test_trtllm_decode_allreduce_by_its_own_curve():
    """Llama-3.1-70B at TP 8 on H100, decode at batch 128: 128 × 8,192 × 2 B = 2,097,152 B a
    rank, below AUTO's 8,000,000 B workspace (its one-shot/two-shot kernels). TensorRT-LLM's
    curve (1.3.0rc20's table, h100.yaml allreduce_engine.trtllm, 8 GPUs): one-shot 3.216 us +
    1.75 × 2,097,152 / 72.48e9 = 3.216 + 50.635 = 53.851 us, two-shot 17.46 us + 1.75 ×
    2,097,152 / 210.5e9 = 17.46 + 17.435 = 34.895 us (the table: 35 us), the least 34.895 us;
    160 all-reduces (80 layers × 2) 5.583 ms. vLLM 0.33 (multimem up to 64 MiB) keeps vLLM's
    table, 14.0 us + 1.75 × 2,097,152 / 402.8e9 = 23.111 us, 160 × = 3.698 ms."""
    hw = load_hardware("h100")
    (lat1, bw1), (lat2, bw2) = hw.kernels.allreduce_engine["trtllm"].segments[8]
    m = 2 * MIB
    own = min(lat1 + 1.75 * m / bw1, lat2 + 1.75 * m / bw2)
    assert own == pytest.approx(34.895e-6, rel=1e-4)
    assert _allreduce("trtllm", "1.2.0", batch=128, ctx=2048) == pytest.approx(160 * own)
    assert _allreduce("trtllm", "1.2.0", batch=128, ctx=2048) == pytest.approx(5.583e-3, rel=1e-3)
    lat, bw = hw.kernels.allreduce["custom"].segments[8][1]
    assert _allreduce("vllm", "0.33.0", batch=128, ctx=2048) == pytest.approx(
        160 * (lat + 1.75 * m / bw))
    assert _allreduce("vllm", "0.33.0", batch=128, ctx=2048) == pytest.approx(3.698e-3, rel=1e-3)


def test_trtllm_past_its_workspace_stays_nccl():
    """A 1,024-token prefill at TP 8 passes 1,024 × 8,192 × 2 = 16 MiB > 8,000,000 B: NCCL,
    by NCCL's curve, whichever curve the engine's kernels have: 41.97 us + 1.75 × 16,777,216 /
    427.3e9 = 110.68 us, × 160 = 17.71 ms."""
    nccl = load_hardware("h100").kernels.allreduce["nccl"].segments[8][1]
    want = 160 * (nccl[0] + 1.75 * 16 * MIB / nccl[1])
    assert want == pytest.approx(17.71e-3, rel=2e-3)
    assert _allreduce("trtllm", "1.2.0", batch=1, prompt=1024) == pytest.approx(want)


def test_gpu_count_absent_from_the_engine_curve_keeps_custom():
    """A GPU count the engine's table did not measure (GB200's and GB300's TensorRT-LLM tables:
    2 and 4 GPUs only) leaves the stage to ``allreduce.custom``: H100 with the TensorRT-LLM
    curve's 8-GPU segments taken out times the 2 MiB decode all-reduce as vLLM's table does,
    160 × 23.111 us = 3.698 ms (the first test's arithmetic)."""
    from dataclasses import replace

    hw = load_hardware("h100")
    own = hw.kernels.allreduce_engine["trtllm"]
    fewer = replace(own, segments={n: s for n, s in own.segments.items() if n != 8})
    hw = replace(hw, kernels=replace(hw.kernels, allreduce_engine={"trtllm": fewer}))
    dep = Deployment.build(load_model("llama3-70b"), hw,
                           engine=EngineSettings(name="trtllm", version="1.2.0"), tp=8)  # fmt: skip
    t = next(o for o in step_of(dep, batch=128, ctx=2048).ops if o.name == "tp_allreduce").time_s
    lat, bw = hw.kernels.allreduce["custom"].segments[8][1]
    assert t == pytest.approx(160 * (lat + 1.75 * 2 * MIB / bw))
    assert t == pytest.approx(3.698e-3, rel=1e-3)


def test_profile_block_is_what_the_fit_script_writes(tmp_path, monkeypatch):
    """tools/fit_kernels.py writes the ``allreduce_engine`` block: the shipped H100 block is the
    script's rendering of its own numbers, and writing it again (``_put_engine_allreduce``)
    leaves the profile as it is; a profile without the block gets it after ``allreduce``."""
    import shutil

    import yaml

    from tests.scripts import load_script

    fk = load_script("tools/fit_kernels.py")
    root = Path(__file__).resolve().parent.parent
    text = (root / "hardware_profiles" / "h100.yaml").read_text()
    shipped = yaml.safe_load(text)["kernels"]["allreduce_engine"]["trtllm"]
    fit = {
        "allreduce_engine": {"trtllm": {
            n: [{"latency_s": lat, "bus_bytes_per_s": bw} for lat, bw in segs]
            for n, segs in shipped["segments"].items()
        }},
        "stats": {"allreduce@trtllm": {"sources": [shipped["source"]]}},
    }  # fmt: skip
    block = fk._engine_allreduce_yaml(fit)
    assert "\n".join(block) in text  # the shipped lines, as the script writes them
    (tmp_path / "hardware_profiles").mkdir()
    shutil.copy(root / "hardware_profiles" / "h100.yaml", tmp_path / "hardware_profiles")
    monkeypatch.setattr(fk, "ROOT", tmp_path)
    fk._put_engine_allreduce("h100", block)
    assert (tmp_path / "hardware_profiles" / "h100.yaml").read_text() == text
    lines = text.split("\n")
    at = lines.index("  allreduce_engine:") - 2
    without = lines[:at] + lines[at + len(block):]
    (tmp_path / "hardware_profiles" / "h100.yaml").write_text("\n".join(without))
    fk._put_engine_allreduce("h100", block)
    assert (tmp_path / "hardware_profiles" / "h100.yaml").read_text() == text
