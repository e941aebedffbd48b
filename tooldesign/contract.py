"""Names shared by generated code and the runtime. No imports: codegen reads them cheaply."""

BOUNDS_CONFIG_KEY = "x-tooldesign-bounds"
"""Key in a bounded result model's ``json_schema_extra`` naming its next-cursor attribute."""

BOUNDED_BASE_CLASS = "tooldesign.runtime.BoundedResultModel"
"""The base class of generated bounded result models."""
