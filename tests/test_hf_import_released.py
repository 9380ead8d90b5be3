"""config.json import of the families people deploy today (issue 15 / 11.2): multimodal
wrappers with vision towers, transformers' defaults for omitted keys, RoPE scaling, snapshot
folders, and quantization_config as per-component weight formats.

The config dicts below are the architecture keys of each upstream config.json (values as
published; keys the importer ignores, e.g. token ids, are left out).
"""

from __future__ import annotations

import json

import pytest

from calc.data.hf_import import hf_to_fields
from calc.data.model_schema import ModelConfig
from calc.data.registry import load_model
from calc.deploy.checkpoint import linear_dtype, released_dtypes
from calc.errors import ConfigError
from calc.formulas.attention_layout import attention_layout
from calc.formulas.params import model_params

GEMMA3_12B = {  # google/gemma-3-12b-it: text_config has no vocab_size, head_dim, ...
    "architectures": ["Gemma3ForConditionalGeneration"],
    "model_type": "gemma3",
    "text_config": {
        "hidden_size": 3840,
        "intermediate_size": 15360,
        "model_type": "gemma3_text",
        "num_attention_heads": 16,
        "num_hidden_layers": 48,
        "num_key_value_heads": 8,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
    },
    "torch_dtype": "bfloat16",
    "vision_config": {
        "hidden_size": 1152,
        "image_size": 896,
        "intermediate_size": 4304,
        "model_type": "siglip_vision_model",
        "num_attention_heads": 16,
        "num_hidden_layers": 27,
        "patch_size": 14,
        "vision_use_head": False,
    },
}
MISTRAL_SMALL_31 = {  # mistralai/Mistral-Small-3.1-24B-Instruct-2503
    "architectures": ["Mistral3ForConditionalGeneration"],
    "model_type": "mistral3",
    "multimodal_projector_bias": False,
    "spatial_merge_size": 2,
    "text_config": {
        "head_dim": 128,
        "hidden_size": 5120,
        "intermediate_size": 32768,
        "max_position_embeddings": 131072,
        "model_type": "mistral",
        "num_attention_heads": 32,
        "num_hidden_layers": 40,
        "num_key_value_heads": 8,
        "sliding_window": None,
        "vocab_size": 131072,
    },
    "torch_dtype": "bfloat16",
    "vision_config": {
        "head_dim": 64,
        "hidden_size": 1024,
        "image_size": 1540,
        "intermediate_size": 4096,
        "model_type": "pixtral",
        "num_attention_heads": 16,
        "num_channels": 3,
        "num_hidden_layers": 24,
        "patch_size": 14,
    },
}
LLAMA4_SCOUT = {  # meta-llama/Llama-4-Scout-17B-16E-Instruct
    "architectures": ["Llama4ForConditionalGeneration"],
    "model_type": "llama4",
    "text_config": {
        "attention_bias": False,
        "attention_chunk_size": 8192,
        "head_dim": 128,
        "hidden_size": 5120,
        "interleave_moe_layer_step": 1,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
        "max_position_embeddings": 10485760,
        "model_type": "llama4_text",
        "num_attention_heads": 40,
        "num_experts_per_tok": 1,
        "num_hidden_layers": 48,
        "num_key_value_heads": 8,
        "num_local_experts": 16,
        "rope_scaling": {
            "factor": 16.0,
            "high_freq_factor": 1.0,
            "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
            "rope_type": "llama3",
        },
        "tie_word_embeddings": False,
        "use_qk_norm": True,
        "vocab_size": 202048,
    },
    "torch_dtype": "bfloat16",
    "vision_config": {
        "hidden_size": 1408,
        "image_size": 336,
        "intermediate_size": 5632,
        "model_type": "llama4_vision_model",
        "num_attention_heads": 16,
        "num_hidden_layers": 34,
        "patch_size": 14,
        "pixel_shuffle_ratio": 0.5,
        "projector_input_dim": 4096,
        "projector_output_dim": 4096,
        "vision_output_dim": 4096,
    },
}
LLAMA4_MAVERICK = {  # meta-llama/Llama-4-Maverick-17B-128E-Instruct (vision as Scout)
    **LLAMA4_SCOUT,
    "text_config": {
        **{k: v for k, v in LLAMA4_SCOUT["text_config"].items() if k != "rope_scaling"},
        "interleave_moe_layer_step": 2,
        "max_position_embeddings": 1048576,
        "num_local_experts": 128,
        "rope_scaling": None,
        "use_qk_norm": False,
    },
}
PHI4 = {  # microsoft/phi-4
    "architectures": ["Phi3ForCausalLM"],
    "hidden_size": 5120,
    "intermediate_size": 17920,
    "max_position_embeddings": 16384,
    "model_type": "phi3",
    "num_attention_heads": 40,
    "num_hidden_layers": 40,
    "num_key_value_heads": 10,
    "original_max_position_embeddings": 16384,
    "rope_scaling": None,
    "sliding_window": None,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 100352,
}
LLAMA31_8B = {  # meta-llama/Llama-3.1-8B
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}


def _load(data, name="m"):
    from calc.data.yaml_io import validate

    return validate(ModelConfig, hf_to_fields(data, "config.json", name), "config.json")


@pytest.mark.parametrize(
    ("data", "shipped"),
    [
        (GEMMA3_12B, "gemma-3-12b"),
        (MISTRAL_SMALL_31, "mistral-small-3.1-24b"),
        (LLAMA4_SCOUT, "llama4-scout"),
        (LLAMA4_MAVERICK, "llama4-maverick"),
        (PHI4, "phi-4"),
        (LLAMA31_8B, "llama3.1-8b"),
    ],
)
def test_import_matches_shipped(data, shipped):
    imported, ship = _load(data), load_model(shipped)
    pi, ps = model_params(imported), model_params(ship)
    assert pi == ps  # every part, the vision tower included
    li, ls = attention_layout(imported), attention_layout(ship)
    for ctx in (1, 4096, 32768, 131072):
        assert li.kv_bytes_per_sequence(ctx, 2) == ls.kv_bytes_per_sequence(ctx, 2)
    assert imported.layers == ship.layers
    assert imported.context_limit == ship.context_limit
    assert released_dtypes(imported) == released_dtypes(ship)


def test_gemma3_text_config_without_vocab_size_gets_transformers_defaults():
    cfg = _load(GEMMA3_12B)
    # Gemma3TextConfig defaults: vocab 262,208, max_position_embeddings 131,072, head_dim 256
    assert (cfg.vocab_size, cfg.max_ctx, cfg.head_dim) == (262_208, 131_072, 256)
    assert cfg.tie_embeddings and cfg.layer_pattern == ["sliding"] * 5 + ["full"]


def test_vision_towers_are_weights_not_flops():
    from calc.deploy.steps import decode_step

    gemma = load_model("gemma-3-12b")
    p = model_params(gemma)
    # SigLIP: patch 3·14·14·1152 + 1152 = 678,528; positions 4096 × 1152 = 4,718,592;
    # 27 layers × (4·1152² + 4·1152 + 2·1152·4304 + 4304 + 1152 + 2 × 2·1152 = 15,239,504)
    # = 411,466,608; post norm 2,304 -> 416,866,032; projector 1152 × 3840 + 1152
    # = 4,424,832 -> 421,290,864
    assert p.vision == 421_290_864
    # text: emb 262208·3840 = 1,006,878,720 (tied); attn 48 × (3840·4096 + 2·3840·2048
    # + 4096·3840 + q/k norms 512 = 47,186,432) = 2,264,948,736; ffn 48 × 3·3840·15360
    # = 8,493,465,600; norms 193 × 3840 = 741,120 -> 11,766,034,176
    assert p.text == 11_766_034_176
    assert p.total == 12_187_325_040  # card: 12B (12.2B with the vision tower)
    assert p.active == p.text  # the tower runs per image, not per generated token
    step = decode_step(gemma, None, batch=1, ctx=64)
    assert "vision" not in {o.name for o in step.raw}


def test_mistral_small_31_and_llama4_parameter_counts():
    m = model_params(load_model("mistral-small-3.1-24b"))
    # text: emb 2 × 131072·5120 = 1,342,177,280; attn 40 × (5120·4096 + 2·5120·1024 +
    # 4096·5120 = 52,428,800) = 2,097,152,000; ffn 40 × 3·5120·32768 = 20,132,659,200;
    # norms 81 × 5120 = 414,720 -> 23,572,403,200
    assert m.text == 23_572_403_200
    # Pixtral: patch 3·14·14·1024 = 602,112; ln_pre 1,024; 24 × (4·1024² + 3·1024·4096 +
    # 2·1024 = 16,779,264) = 402,702,336; projector 1,024 + 4096·1024 + 1024·5120 +
    # 5120·5120 = 35,652,608 -> 438,958,080
    assert m.vision == 438_958_080
    assert m.total == 24_011_361_280  # card: 24B
    scout = model_params(load_model("llama4-scout"))
    # text: emb 2 × 202048·5120 = 2,068,971,520; attn 48 × (2·5120² + 2·5120·1024)
    # = 3,019,898,880; experts 48 × 16 × 3·5120·8192 = 96,636,764,160; shared 48 ×
    # 125,829,120 = 6,039,797,760; router 48 × 5120·16 = 3,932,160; norms 97 × 5120
    # = 496,640 -> 107,769,861,120
    assert scout.text == 107_769_861_120
    # vision: patch 3·14·14·1408 = 827,904; class 1,408; positions 577 × 1408 = 812,416;
    # pre/post LayerNorm 2 × 2,816; 34 × (4·1408² + 4·1408 + 2·1408·5632 + 5632 + 1408 +
    # 2 × 2,816 = 23,807,872) = 809,467,648 -> 811,115,008; adapter 5632·4096 +
    # 4096·4096 = 39,845,888; projector 4096·5120 = 20,971,520 -> 871,932,416
    assert scout.vision == 871_932_416
    assert scout.total == 108_641_793_536  # card: 109B total
    # active: text − 15 of 16 experts: 107,769,861,120 − 48 × 15 × 125,829,120
    assert scout.active == 17_172_894_720  # card: 17B active
    mav = model_params(load_model("llama4-maverick"))
    # 24 dense layers × 3·5120·16384 = 6,039,797,760; 24 MoE layers × 128 × 125,829,120
    # = 386,547,056,640; shared 24 × 125,829,120 = 3,019,898,880; router 24 × 5120·128
    # = 15,728,640; + emb, attn, norms as Scout -> text 400,711,848,960
    assert mav.text == 400_711_848_960
    assert mav.total == 401_583_781_376  # card: 400B total
    assert mav.active == 17_184_691_200  # card: 17B active


def test_llama4_chunked_attention_kv():
    cfg = load_model("llama4-scout")
    # 12 global NoPE layers (every 4th), 36 chunked (8,192); 2 × 8 × 128 × 2 = 4,096 B per
    # token per layer. At 32,768 tokens: (12 × 32,768 + 36 × 8,192) × 4,096 = 2,818,572,288
    layout = attention_layout(cfg)
    assert cfg.n_layers_of("full") == 12 and cfg.n_layers_of("chunked") == 36
    assert layout.kv_bytes_per_token(2) == 196_608  # 48 × 4,096
    assert layout.kv_bytes_per_sequence(32768, 2) == 2_818_572_288
    assert cfg.context_limit == 10_485_760


# --- RoPE scaling -> context limit --------------------------------------------------------


@pytest.mark.parametrize(
    ("rope", "mpe", "limit"),
    [
        (None, 32768, 32768),
        (
            {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192},
            131072,
            131072,
        ),
        # Qwen3's opt-in YaRN: 4 × 32,768 = 131,072 past max_position_embeddings 40,960
        (
            {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
            40960,
            131072,
        ),
        ({"type": "dynamic", "factor": 2.0}, 4096, 8192),  # 2 × 4,096
        ({"type": "linear", "factor": 4.0}, 4096, 4096),  # stated as max_position_embeddings
        (
            {"type": "linear", "factor": 4.0, "original_max_position_embeddings": 4096},
            4096,
            16384,
        ),
        ({"rope_type": "longrope", "factor": 32.0}, 131072, 131072),
        ({"rope_type": "default"}, 8192, 8192),
    ],
)
def test_context_limit_from_rope_scaling(rope, mpe, limit):
    cfg = _load({**LLAMA31_8B, "rope_scaling": rope, "max_position_embeddings": mpe})
    assert cfg.context_limit == limit


def test_context_limit_warns_and_caps_in_every_command(cli):
    r = cli("memory", "-m", "qwen3-8b", "--ctx", "65536", "-H", "h200", "-f", "json")
    assert r.code == 0 and "exceeds qwen3-8b's max context of 40,960" in r.err
    assert r.json()["max_ctx_that_fits"] == 40_960
    r = cli("capacity", "-m", "qwen3-8b", "-H", "h200", "--ctx", "65536", "-f", "json")
    assert r.code == 0 and "exceeds qwen3-8b's max context of 40,960" in r.err
    assert r.json()["max_ctx_at_batch"] <= 40_960
    r = cli("latency", "-m", "qwen3-8b", "-H", "h200", "--prompt", "65536", "-f", "json")
    assert r.code == 0 and "max context of 40,960" in r.err


# --- snapshot folders ---------------------------------------------------------------------


def test_snapshot_folder(tmp_path, cli):
    snap = tmp_path / "Llama-3.1-8B"
    snap.mkdir()
    (snap / "config.json").write_text(json.dumps(LLAMA31_8B))
    r = cli("memory", "-m", str(snap), "--ctx", "8192", "-f", "json")
    assert r.code == 0, r.err
    assert r.json()["params_total"] == 8_030_261_248
    r = cli("import-hf", str(snap))
    assert r.code == 0 and "name: llama-3.1-8b" in r.out
    empty = tmp_path / "empty"
    empty.mkdir()
    r = cli("memory", "-m", str(empty), "--ctx", "8")
    assert r.code == 2 and r.err.count("\n") == 1 and "without a config.json" in r.err


# --- quantization_config ------------------------------------------------------------------


def _q(q, base=LLAMA31_8B):
    return _load({**base, "quantization_config": q})


def test_fp8_block_and_tensor():
    cfg = _q({"quant_method": "fp8", "weight_block_size": [128, 128]})
    d = released_dtypes(cfg)
    assert d["attention"] == d["dense_ffn"] == "fp8-block128"
    assert d["embedding"] == d["lm_head"] == d["norms"] == "bf16"
    assert linear_dtype(cfg) == "fp8-block128"
    assert released_dtypes(_q({"quant_method": "fp8"}))["attention"] == "fp8-tensor"


def test_compressed_tensors_with_ignore_list():
    q = {
        "quant_method": "compressed-tensors",
        "config_groups": {
            "group_0": {
                "targets": ["Linear"],
                "weights": {"num_bits": 8, "type": "float", "strategy": "channel"},
            }
        },
        "ignore": ["lm_head", "re:.*self_attn.*"],
    }
    d = released_dtypes(_q(q))
    assert d["dense_ffn"] == "fp8-tensor" and d["attention"] == "bf16"
    q["config_groups"]["group_0"]["weights"] = {
        "num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": True
    }  # fmt: skip
    assert released_dtypes(_q(q))["dense_ffn"] == "int4-g128-sym"
    q["config_groups"]["group_0"]["weights"] = {"num_bits": 4, "type": "float", "group_size": 16}
    assert released_dtypes(_q(q))["dense_ffn"] == "nvfp4"


def test_awq_gptq_bits_and_group():
    awq = _q({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True})
    assert released_dtypes(awq)["dense_ffn"] == "int4-g128"  # asymmetric: zeros stored
    gptq = _q({"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": True})
    assert released_dtypes(gptq)["attention"] == "int4-g128-sym"
    g32 = _q({"quant_method": "gptq", "bits": 4, "group_size": 32, "sym": False})
    assert released_dtypes(g32)["dense_ffn"] == "int4-g32"
    from calc.formulas.quant import weight_bytes_per_element

    # 4 bits + fp16 scale + 4-bit zero per 32: 0.5 + 2.5/32 = 0.578125 B
    assert weight_bytes_per_element("int4-g32") == 0.578125
    # 8 bits + fp16 scale per 128: 1 + 2/128 = 1.015625 B
    g8 = _q({"quant_method": "gptq", "bits": 8, "group_size": 128, "sym": True})
    assert weight_bytes_per_element(released_dtypes(g8)["attention"]) == 1.015625
    with pytest.raises(ConfigError, match="group_size -1 has no kvcalc format"):
        _q({"quant_method": "gptq", "bits": 4, "group_size": -1})
    with pytest.raises(ConfigError, match="with 3 bits"):
        _q({"quant_method": "gptq", "bits": 3, "group_size": 128})


def test_mxfp4_with_modules_to_not_convert():
    q = {
        "quant_method": "mxfp4",
        "modules_to_not_convert": [
            "model.layers.*.self_attn",
            "model.layers.*.mlp.router",
            "model.embed_tokens",
            "lm_head",
        ],
    }
    d = released_dtypes(_q(q))
    assert d["dense_ffn"] == "mxfp4" and d["attention"] == d["router"] == "bf16"


def test_bitsandbytes_4bit():
    cfg = _q({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"})
    assert released_dtypes(cfg)["dense_ffn"] == "nf4-g64"
    from calc.formulas.quant import weight_bytes_per_element

    assert weight_bytes_per_element("nf4-g64") == 0.5625  # 4 bits + fp32 absmax per 64


def test_unknown_quantization_is_an_error_not_bf16(cli, tmp_path):
    with pytest.raises(ConfigError, match="quant_method 'hqq' is not understood"):
        _q({"quant_method": "hqq"})
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA31_8B, "quantization_config": {"quant_method": "hqq"}}))
    r = cli("memory", "-m", str(path), "--ctx", "8")
    assert r.code == 2 and r.err.count("\n") == 1 and "hqq" in r.err


def test_quantised_import_sizes_weights_in_the_checkpoint_format(cli, tmp_path):
    path = tmp_path / "config.json"
    q = {"quant_method": "fp8", "weight_block_size": [128, 128]}
    path.write_text(json.dumps({**LLAMA31_8B, "quantization_config": q}))
    r = cli("memory", "-m", str(path), "--ctx", "8", "-f", "json")
    assert r.code == 0, r.err
    # linear 6,979,321,856 × (1 + 4/16384) = 6,979,321,856 + 1,703,936 (one fp32 per
    # 128 × 128 block) = 6,981,025,792; embedding, lm_head and norms 1,050,939,392 × 2
    # = 2,101,878,784 -> 9,082,904,576 B (not 16,060,522,496 as bf16)
    assert r.json()["weights_bytes"] == 9_082_904_576
    assert r.json()["weight_dtype"] == "fp8-block128"


def test_import_hf_yaml_round_trip_keeps_towers_formats_and_rope(cli, tmp_path):
    from calc.deploy.checkpoint import model_weight_bytes

    for data, shipped in ((LLAMA4_SCOUT, "llama4-scout"), (GEMMA3_12B, "gemma-3-12b")):
        src = tmp_path / shipped
        src.mkdir()
        q = {"quant_method": "fp8", "weight_block_size": [128, 128]}
        (src / "config.json").write_text(json.dumps({**data, "quantization_config": q}))
        out = tmp_path / f"{shipped}.yaml"
        r = cli("import-hf", str(src), "-o", str(out))
        assert r.code == 0, r.err
        back, direct = load_model(str(out)), _load({**data, "quantization_config": q})
        assert model_params(back) == model_params(direct)
        assert back.context_limit == direct.context_limit
        assert model_weight_bytes(back) == model_weight_bytes(direct)
        assert released_dtypes(back)["attention"] == "fp8-block128"
        assert released_dtypes(back)["vision"] == "bf16"


def test_memory_explain_shows_each_format(cli):
    r = cli("memory", "-m", "gpt-oss-120b", "--ctx", "1024", "--explain")
    assert r.code == 0
    # 114,701,598,720 × 0.53125 + 2,127,557,952 × 2 = 65,190,340,224
    assert "params_mxfp4 × bytes_mxfp4 + params_bf16 × bytes_bf16" in r.out
    assert "= 65,190,340,224 bytes" in r.out


def test_gpt_oss_fixture_imports_as_released():
    from pathlib import Path

    from calc.data.hf_import import load_hf_config
    from calc.deploy.checkpoint import model_weight_bytes

    data = Path(__file__).resolve().parent / "data" / "hf" / "gpt-oss-120b.json"
    imported, shipped = load_hf_config(data), load_model("gpt-oss-120b")
    assert released_dtypes(imported) == released_dtypes(shipped)
    assert sum(model_weight_bytes(imported).values()) == 65_190_340_224
    assert imported.context_limit == 131_072  # YaRN factor 32 × 4,096


FFN = ("dense_ffn", "routed_experts", "shared_experts")
LINEAR = ("attention", *FFN, "ssm")


@pytest.mark.parametrize(
    ("ignore", "kept"),
    [
        (["lm_head"], {"lm_head": "*"}),
        (["lm_head", "re:.*mlp.gate$"], {"lm_head": "*"}),  # the router of an MoE
        (["re:.*shared_expert_gate$"], {}),  # Qwen MoE's shared-expert gate scalar
        (["re:.*self_attn.*"], {"attention": "*"}),
        (["re:vision_tower.*", "re:.*vision.*attn.*"], {}),  # tower modules only
        # one layer's FFN: that layer only (dense or MoE, whichever it is)
        (["model.layers.0.mlp"], {c: {0} for c in FFN}),
        (["re:.*mlp.experts.*"], {"routed_experts": "*"}),
        # a regex is matched as compressed-tensors does (re.match on module names): this one
        # names the dense MLP's gate_proj, not model.layers.N.mlp.experts.M.gate_proj
        (["re:.*mlp.gate_proj"], {"dense_ffn": "*"}),
        # Kimi-K2.5's int4 release keeps attention, shared experts and dense MLPs in bf16
        (["lm_head", "re:.*self_attn.*", "re:.*shared_experts.*",
          "re:.*mlp\\.(gate|up|gate_up|down)_proj.*"],
         {"lm_head": "*", "attention": "*", "shared_experts": "*", "dense_ffn": "*"}),
        # ModelOpt globs: layers.1* is every layer whose index starts with 1 (fnmatch)
        (["model.layers.1*"], {c: {1, 10, 11} for c in LINEAR}),
        (["model.layers.1.*", "model.layers.0.input_layernorm"], {c: {1} for c in LINEAR}),
    ],
)
def test_ignore_lists_keep_the_named_linear_layers(ignore, kept):
    from calc.data.hf_quant import read_excludes

    comps, parts = read_excludes(ignore, n_layers=12)
    assert comps == kept and parts == {}


def test_ignore_lists_name_attention_projections():
    from calc.data.hf_quant import read_excludes

    names = [f"model.layers.{i}.self_attn.{p}" for i in range(3)
             for p in ("kv_a_proj_with_mqa", "kv_b_proj", "indexer*")]  # fmt: skip
    comps, parts = read_excludes(names, n_layers=3)
    assert comps == {} and parts == {p: {0, 1, 2} for p in ("kv_a_proj", "kv_b_proj", "indexer")}
