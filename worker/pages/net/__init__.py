"""The worker's own HTTP client: URL rules, the address guard, proxies, download.

Standard library only (http.client, socket, ssl lazily): a fetch is a fresh
process, and these modules cost a few milliseconds where requests/urllib3 cost
tens.  More to the point, http.client lets us connect to the exact address the
guard vetted, which higher-level clients do not expose.
"""

# The body cap, here so callers can name it without importing the client.
DEFAULT_MAX_BYTES = 5 * 1024 * 1024
