"""Example applications that use tooldesign."""
