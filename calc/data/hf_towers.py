"""The vision (or audio) tower of a multimodal Hugging Face config [elements, layers], as a
calc.data.model_schema.TowerConfig: a ViT encoder and the projector into the text model.

Known towers (their modelling code in vLLM 0.33, vllm/model_executor/models/):

- gemma3: SigLIP (learned positions, biases, LayerNorm, GELU MLP), one linear projector;
- mistral3 / pixtral: RoPE-2D, RMSNorm, SwiGLU, no biases; a patch merger and two linears;
- llama4: CLIP-like with a class token and a pixel-shuffle adapter;
- qwen3_vl / qwen3_5 (``qwen3_vl.py``): a Conv3d patch embedding over temporal_patch_size
  frames, learned positions, LayerNorm ViT with biases, a patch merger (LayerNorm, two
  linears of d·m² with biases) plus one more merger per deepstack layer (its LayerNorm over
  d·m²);
- kimi_vl / kimi_k25 MoonViT (``moonvit.py``, ``kimi_k25_vit.py``): learned 2-D positions
  (init_pos_emb_height × width), LayerNorm ViT with biases, a final LayerNorm, a projector of
  a LayerNorm and two linears of d·m² with biases.

Another tower whose config has the usual ViT keys is estimated as a plain ViT (biases,
LayerNorm, GELU MLP, no projector) with a warning; one without them is left out, also with a
warning: a tower is never dropped silently.
"""

from __future__ import annotations

from typing import Any

from calc.data.hf_keys import HfConfig


def _vit(v: HfConfig) -> dict[str, Any]:
    d = v.need_one("hidden_size", "vt_hidden_size", what="the vision tower")
    return dict(
        n_layers=v.need_one("num_hidden_layers", "depth", "vt_num_hidden_layers",
                            what="the vision tower"),
        d_model=d,
        d_ffn=v.need_one("intermediate_size", "vt_intermediate_size", what="the vision tower"),
        patch_size=v.need("patch_size", "the vision tower"),
        n_channels=v.first("num_channels", "in_channels", default=3),
    )  # fmt: skip


def _gemma3(v: HfConfig, text_d: int) -> dict[str, Any]:
    tower = _vit(v)
    d = tower["d_model"]
    side = v.need("image_size", "the vision tower") // tower["patch_size"]
    tower.update(n_positions=side * side, projector=[[d, text_d]], projector_norms=[d])
    return tower


def _pixtral(v: HfConfig, text_d: int) -> dict[str, Any]:
    tower = _vit(v)
    d, m = tower["d_model"], v.get("spatial_merge_size", 2)
    tower.update(
        ffn_kind="gated", norm="rmsnorm", bias=False, patch_bias=False, pre_norm=True,
        post_norm=False, projector=[[d * m * m, d], [d, text_d], [text_d, text_d]],
        projector_norms=[d],
    )  # fmt: skip
    return tower


def _llama4(v: HfConfig, text_d: int) -> dict[str, Any]:
    tower = _vit(v)
    side = v.need("image_size", "the vision tower") // tower["patch_size"]
    p_in = v.need("projector_input_dim", "the pixel-shuffle adapter")
    p_out = v.need("projector_output_dim", "the pixel-shuffle adapter")
    out_dim = v.get("vision_output_dim", p_out)
    tower.update(
        n_positions=side * side + 1,
        class_token=True,
        pre_norm=True,
        patch_bias=False,
        # Llama4VisionMLP2: fc1 intermediate_size (the pixel-shuffled width, d / ratio²)
        # -> projector_input_dim, fc2 projector_output_dim²; then linear_1 to the text
        projector=[[tower["d_ffn"], p_in], [p_out, p_out], [out_dim, text_d]],
    )
    return tower


def _qwen3_vl(v: HfConfig, text_d: int) -> dict[str, Any]:
    tower = _vit(v)
    d, m = tower["d_model"], v.get("spatial_merge_size", 2)
    wide = d * m * m
    out = v.get("out_hidden_size", text_d)
    deep = len(v.get("deepstack_visual_indexes") or [])
    tower.update(
        # Conv3d over temporal_patch_size frames: the kernel is channels × t × p × p
        n_channels=tower["n_channels"] * v.get("temporal_patch_size", 2),
        n_positions=v.need("num_position_embeddings", "the vision tower"),
        post_norm=False,
        projector=[[wide, wide], [wide, out]] * (1 + deep),
        projector_bias=True,
        # LayerNorms (scale and bias): the merger's over d, each deepstack merger's over d·m²
        projector_norms=[d, d] + [wide, wide] * deep,
    )
    return tower


def _moonvit(v: HfConfig, text_d: int) -> dict[str, Any]:
    tower = _vit(v)
    d = tower["d_model"]
    kh, kw = v.get("merge_kernel_size") or [2, 2]
    wide = d * kh * kw
    h = v.first("init_pos_emb_height", "pos_emb_height", default=64)
    w = v.first("init_pos_emb_width", "pos_emb_width", default=64)
    tower.update(
        n_positions=h * w,
        projector=[[wide, wide], [wide, text_d]],
        projector_bias=True,
        projector_norms=[d, d],  # the projector's pre_norm LayerNorm (scale and bias)
    )
    return tower


_TOWERS = {
    "gemma3": _gemma3,
    "mistral3": _pixtral,
    "llama4": _llama4,
    "qwen3_vl": _qwen3_vl,
    "qwen3_vl_moe": _qwen3_vl,
    "qwen3_5": _qwen3_vl,
    "qwen3_5_moe": _qwen3_vl,
    "kimi_vl": _moonvit,
    "kimi_k25": _moonvit,
    "kimi_k3": _moonvit,
}


def vision_tower(
    vision: dict[str, Any], outer_type: str | None, text_d: int, c: HfConfig
) -> dict[str, Any] | None:
    """TowerConfig fields of ``vision`` (the config's vision_config) for the wrapper
    ``outer_type``; an unknown tower is estimated as a plain ViT or left out, with an
    assumption recorded on ``c`` either way."""
    v = HfConfig(vision, f"{c.where} vision_config")
    kind = _TOWERS.get(str(outer_type))
    if kind is not None:
        return kind(v, text_d)
    need = ("hidden_size", "num_hidden_layers", "intermediate_size", "patch_size")
    if all(v.has(k) for k in need):
        c.assume(f"vision tower of model_type {outer_type!r} estimated as a plain ViT (biases, "
                 "LayerNorm, GELU MLP), its projector not counted")  # fmt: skip
        return _vit(v)
    c.assume(f"vision tower of model_type {outer_type!r} not understood: its weights are not "
             "counted")  # fmt: skip
    return None
