"""Binding analysis (``BindTo``): reading the user's Python types and planning how a tool's values
reach the bound method and come back."""
