"""kvcalc's fused-MoE layer at prefill sizes beside aiconfigurator's measured MoE tables [ms per
layer and signed ×] (issue 20, MoE prefill round; docs/step-time.md).

For the MoE serving groups whose TTFT comes out fast (Qwen3-235B-A22B and DeepSeek-V3 on H100,
H200 and B200 under vLLM, SGLang and TensorRT-LLM), a single prompt of 256 to 16,384 tokens:
kvcalc's ``routed_experts`` op per MoE layer (the step model, the engine's own curve) beside the
tables at the model's own shape (hidden, expert width, experts, top-k), its MoE TP and EP, each
kernel source apart, ``balanced`` and ``power_law_1.01`` routing. The tables reach 16,384
tokens: every prefill of the serving rows lies inside the range the curves were fitted on.

A dev script: it reads aiconfigurator-core 0.12.0's parquet tables (Apache-2.0) with pandas,
which kvcalc never imports; run it with a python that has pandas and pyarrow:

    python tools/moe_prefill_tables.py /tmp/wheels/aiconfigurator_core-0.12.0-*.whl
"""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DATA = "aiconfigurator_core/systems/data"
TOKENS = (256, 1024, 2048, 4096, 8192, 16384)
# (model, kvcalc hardware, aiconfigurator system, engine, table release, kvcalc format,
#  table dtype, tp, ep): the layouts of the serving rows studied
CASES = (
    ("qwen3-235b-a22b", "h200", "h200_sxm", "vllm", "0.24.0", "fp8-block128", "fp8_block", 2, 1),
    ("qwen3-235b-a22b", "h200", "h200_sxm", "vllm", "0.24.0", "fp8-block128", "fp8_block", 4, 1),
    ("qwen3-235b-a22b", "h200", "h200_sxm", "sglang", "0.5.14", "fp8-block128", "fp8_block", 4, 1),
    ("qwen3-235b-a22b", "h100", "h100_sxm", "trtllm", "1.3.0rc20", "fp8-tensor", "fp8", 4, 4),
    ("deepseek-v3", "h200", "h200_sxm", "sglang", "0.5.14", "fp8-block128", "fp8_block", 8, 1),
    ("deepseek-v3", "h200", "h200_sxm", "trtllm", "1.3.0rc20", "fp8-block128", "fp8_block", 8, 1),
    ("deepseek-v3", "b200", "b200_sxm", "sglang", "0.5.14", "nvfp4", "nvfp4", 8, 1),
    ("deepseek-v3", "b200", "b200_sxm", "trtllm", "1.3.0rc20", "nvfp4", "nvfp4", 8, 1),
    ("deepseek-v3", "b200", "b200_sxm", "trtllm", "1.3.0rc20", "fp8-block128", "fp8_block", 8, 1),
)


def kvcalc_layer_s(model: str, hw: str, engine: str, fmt: str, tp: int, ep: int, tokens: int):
    """kvcalc's routed-experts time of one MoE layer for one prompt of ``tokens`` [s]."""
    from calc.data.registry import load_hardware, load_model
    from calc.deploy.deployment import Deployment, EngineSettings
    from calc.deploy.steps import step_of

    m = load_model(model)
    dep = Deployment.build(m, load_hardware(hw), tp=tp, ep=ep, weight_dtype=fmt,
                           engine=EngineSettings(name=engine))  # fmt: skip
    step = step_of(dep, batch=dep.sharding.dp_attn, prompt=tokens)
    return sum(float(o.time_s) for o in step.ops if o.name == "routed_experts") / m.n_moe_layers


def main(wheel: str) -> None:
    import pandas as pd

    from calc.data.registry import load_model

    z = zipfile.ZipFile(wheel)
    for model, hw, gpu, engine, release, fmt, dtype, tp, ep in CASES:
        m = load_model(model)
        moe = m.moe
        path = f"{DATA}/{gpu}/moe/{engine}/{release}/moe_perf.parquet"
        d = pd.read_parquet(io.BytesIO(z.read(path)))
        d = d[(d.moe_dtype == dtype) & (d.hidden_size == m.d_model)
              & (d.num_experts == moe.n_routed_experts)
              & (d.topk == moe.experts_per_token) & (d.inter_size == moe.d_expert_ffn)
              & (d.moe_tp_size == (tp if ep == 1 else 1)) & (d.moe_ep_size == ep)]  # fmt: skip
        print(f"== {model} {hw} {engine} {release} {fmt} tp {tp} ep {ep}")
        for n in TOKENS:
            ours = kvcalc_layer_s(model, hw, engine, fmt, tp, ep, n) * 1e3
            cells = []
            for (src, dist), g in d[d.num_tokens == n].groupby(["kernel_source", "distribution"]):
                if dist in ("balanced", "power_law_1.01"):
                    t = float(g.latency.median())
                    cells.append(f"{src} {dist} {t:.3f} ({ours / t - 1:+.0%})")
            print(f"  {n:6d} tokens: kvcalc {ours:.3f} ms | " + " | ".join(cells))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tools/moe_prefill_tables.py <aiconfigurator_core-0.12.0 wheel>")
    main(sys.argv[1])
