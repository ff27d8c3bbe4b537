"""HTML to markdown or text: core.py runs the stages; imports.py loads the extraction
libraries cheaply; meta, pagetype, region and render are the stages' parts.

Empty on purpose: core.py imports its parts when a page needs them.
"""
