"""Binding analysis (``BindTo``): how a tool's values reach the bound method and come back.

``pytypes`` reads the application's Python types, ``constraints`` its constraints (and whether
they accept every value the tool's do), ``planner`` plans the transforms, and ``plan`` is the
data a plan is made of, which code generation renders.
"""
