"""The evaluated design (IR) and the phases that produce it."""
