"""Reports: views of a deployment at a workload (memory, capacity, latency, cost, sweep, check,
plot data, engine logs)."""
