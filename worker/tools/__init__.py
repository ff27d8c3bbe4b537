"""The two commands a host calls: search (search.py, with enrich.py's --fetch-top) and
fetch (fetch.py), and what shapes their answers (textview.py, canonical.py).

Empty on purpose: every call is a fresh process, and a package import here is paid by each one.
"""
