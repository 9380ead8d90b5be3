"""Deployments: the Deployment object, its per-GPU ledger, engine memory models, sharding, ops and
the time of one forward pass."""
