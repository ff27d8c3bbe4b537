"""Reading files that options name, with a size cap.

``--config /dev/zero`` or ``--output-schema @/dev/zero`` would otherwise read
until memory runs out: every file a user names is read through ``read_capped``,
which reads at most one byte past the cap and says when the file is larger.
"""

from __future__ import annotations

MAX_OPTION_FILE = 1024 * 1024  # config files and schemas are a few kilobytes; 1 MB is generous


class TooLarge(ValueError):
    """The file holds more than the cap allows."""


def read_capped(path: str, limit: int = MAX_OPTION_FILE) -> bytes:
    """The file's bytes; TooLarge beyond ``limit``, OSError as open/read raise it."""
    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise TooLarge("larger than %d bytes" % limit)
    return data
