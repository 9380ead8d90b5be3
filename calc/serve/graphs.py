"""Which iterations replay a CUDA graph and what an eager one costs on the host [s]: the largest
batch an engine captured at start-up, and the CPU time to launch one forward pass's kernels one
by one.

An engine captures its decode forward pass as CUDA graphs for a set of batch sizes at start-up
and replays the smallest that holds a step's batch: one launch for the whole pass. A larger
batch runs eagerly: the CPU issues every kernel itself (Python, the framework's dispatcher, the
driver), ``kernels × EAGER_LAUNCH_S``. Eager launches are asynchronous, so the GPU waits for
the CPU only where issuing takes longer than running: an eager step takes
``max(GPU time, kernels × EAGER_LAUNCH_S)`` (``calc.serve.steptime``).

The largest captured batch, per engine (``graph_tokens``, from the engine wing's
``Engine.cuda_graph_tokens``):

- **vLLM** (V1: piecewise graphs of every pass of up to that many tokens, decode or mixed):
  the largest of ``VllmConfig._set_cudagraph_sizes`` (the engine wing's
  ``cudagraph_capture_sizes``: up to min(512, 2 × max_num_seqs, max_num_batched_tokens); 1,024
  on data-center Blackwell from 0.28);
- **SGLang** (decode graphs only before 0.5.22's prefill graphs: a pass with a prompt chunk is
  eager): ``cuda_graph_max_bs``: the user's, else from 0.5.3 the wing's default by GPU memory
  and TP, before 0.5.3 ``server_args.py`` ``__post_init__`` (0.4.0): 160, or 8 on GPUs under
  25,000 MiB; ``cuda_graph_runner.py`` captures 1, 2, 4, 8, 16, … up to it;
- ``--enforce-eager`` / ``--disable-cuda-graph`` (``cuda_graphs`` off): every pass eager (0);
- TensorRT-LLM (PyTorch backend, decode-only graphs; ``llm_args.py`` ``CudaGraphConfig``): by
  default 1-31, 32, 64 and 128 sequences unpadded (under trtllm-bench padded up to its
  max_batch_size, on the perf-overview page padded up to 8,192): a list, not a threshold
  (``graph_sizes``, the engine wing's ``cuda_graph_batch_sizes``): a decode pass of 33-63,
  65-127 or more than 128 sequences is eager, and so is every pass with a prompt.

The launch time per kernel (``EAGER_LAUNCH_S``, 28.8 µs): a Llama-3.1-8B decode step on an H100
SXM takes 8.4 ms eager against 5.1 ms replayed as a graph (cloudai.pt, "CUDA Graphs +
torch.compile: 1.65x LLM Decode Speedup"); eager, the step is the CPU's (the GPU needs 5.1 ms),
and kvcalc counts 292 kernels in that pass (``Op.kernels``): 8.4 ms / 292 = 28.8 µs. A check:
SGLang 0.5.20's eager decode of Qwen3-0.6B (28 layers, ~255 kernels by the same count) on an RTX
5090 takes 5.44–5.51 ms a token against 2.64 ms with graphs (sgl-project/sglang PR #40346):
at most 21.5 µs a kernel on that desktop CPU.
"""

from __future__ import annotations

# the CPU time to launch one kernel eagerly [s] (module docstring)
EAGER_LAUNCH_S = 28.8e-6
EAGER_SOURCE = (
    "cloudai.pt 'CUDA Graphs + torch.compile: 1.65x LLM Decode Speedup': Llama-3.1-8B decode on "
    "H100 SXM 8.4 ms eager vs 5.1 ms graphed; 8.4 ms / 292 kernels = 28.8 us"
)


def graph_tokens(dep) -> int | None:
    """The largest pass ``dep``'s engine replays as a CUDA graph [tokens] (module docstring;
    the engine wing's ``cuda_graph_tokens``, or the largest of its declared list): 0 without
    graphs, None where not modelled."""
    if not dep.engine_config.cuda_graphs:
        return 0
    sizes = graph_sizes(dep)
    if sizes is not None:
        return max(sizes, default=0)
    return dep.engine_model.cuda_graph_tokens(dep)


def graph_sizes(dep) -> tuple[int, ...] | None:
    """The decode batches ``dep``'s engine captures where it declares a list, each replayed
    unpadded [seqs] (the engine wing's ``cuda_graph_batch_sizes``; TensorRT-LLM's 1-31, 32, 64,
    128): a decode pass of another batch is eager. None: a threshold engine."""
    return dep.engine_model.cuda_graph_batch_sizes(dep)


def decode_only(dep) -> bool:
    """Whether only decode passes are captured (SGLang before its prefill graphs)."""
    return dep.engine_model.graphs_decode_only(dep)


def eager_issue_s(kernels: float) -> float:
    """The CPU time to launch ``kernels`` kernels one by one [s]."""
    return float(kernels) * EAGER_LAUNCH_S
