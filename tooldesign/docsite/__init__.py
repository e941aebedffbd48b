"""A browsable, self-contained HTML reference of tool catalogs (``tooldesign docs``)."""

from tooldesign.docsite.site import MANIFEST, SiteReport, build_site, render_site, write_site

__all__ = ["MANIFEST", "SiteReport", "build_site", "render_site", "write_site"]
