"""Design evaluation: loading design files, building the IR from their records, validation, and the
phases that run them in order."""
