"""Serving under load: workloads, the continuous-batching simulation and latency curves."""
