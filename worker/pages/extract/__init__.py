"""HTML to markdown or text: core.py runs the stages; imports.py loads the extraction
libraries cheaply; meta, pagetype, region, thread, product and render are the stages'
parts; tree.py holds what the parts share (word counts, removing an element).

Empty on purpose: core.py imports its parts when a page needs them.
"""
