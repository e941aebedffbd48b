"""tooldesign.runtime.spec."""
