"""Training-side estimates: memory per GPU [bytes], FLOPs [FLOP], time [s] and cost [USD] of a
training or fine-tuning run (``kvcalc train``)."""
