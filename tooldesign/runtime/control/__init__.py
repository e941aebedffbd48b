"""tooldesign.runtime.control."""
