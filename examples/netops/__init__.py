"""A small in-memory network operations backend: the application the worked example binds to."""
