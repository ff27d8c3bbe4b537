"""A URL in, its readable text out: the guarded download (net/, download.py), content
types (content.py), extraction (extract/), site adapters (sites/), the checks for walls,
shells and hidden text, and windowing (window.py).

Empty on purpose: every call is a fresh process, and a package import here is paid by each one.
"""
