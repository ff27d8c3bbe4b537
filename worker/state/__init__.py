"""State shared on disk by every worker process of the user: the result cache, the
circuit breaker and the cross-process rate limits.

Empty on purpose: every call is a fresh process, and a package import here is paid by each one.
"""
