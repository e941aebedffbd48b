"""Toolsets that ship with tooldesign, designed and generated with tooldesign itself.

``design/`` holds their designs; ``gen/`` is what ``tooldesign gen tooldesign/builtin/design
--out tooldesign/builtin/gen`` writes (CI checks it is current).
"""
