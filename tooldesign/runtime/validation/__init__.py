"""Validation: what a model sent (or a tool returned) checked against the design."""
