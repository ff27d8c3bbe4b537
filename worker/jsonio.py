"""JSON in and out through the C accelerator, without importing the json package.

``import json`` pulls in ``re`` (and with it ``enum``) to compile the pure-Python
fallback's patterns, milliseconds that a cache hit, the cheapest call there is,
would pay for nothing.  The C encoder and scanner behind json are used directly
with the settings json.dumps/json.loads would pass them; where they are missing
or refuse (another Python), the json package does the work.  Errors always come
from the json package, so messages and exception types are json's own.
"""

from __future__ import annotations

from .startup import on

TYPE_CHECKING = False
if TYPE_CHECKING:  # for annotations only: importing typing at run time costs start-up time
    from typing import Any, Callable, Iterable

try:
    if not on("json"):  # WEBSEARCH_WORKER_PLAIN: the json package does every call
        raise ImportError("the json trick is off")
    from _json import encode_basestring as _plain
    from _json import encode_basestring_ascii as _ascii
    from _json import make_encoder as _make_encoder
    from _json import make_scanner as _make_scanner
except ImportError:  # CPython always has _json: the switch is the one way here
    _make_encoder = None  # type: ignore[misc, assignment]  # no C encoder: every call goes to the json package


class _Context:
    """What json.decoder.JSONDecoder hands the C scanner (json.loads's defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo = None

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}[name]


class _FiniteContext(_Context):
    """json.loads with a parse_constant that refuses NaN and Infinity."""

    @staticmethod
    def parse_constant(name: str) -> float:
        raise ValueError("%s is not a JSON number" % name)


_WS = " \t\n\r"
_scanners: dict[bool, Any] = {}
# The C functions take their settings by position, and a Python that reorders them would change
# the output silently: each is asked once what json itself would answer for a probe, and a
# different answer sends every call to the json package.
_PROBE = {"k": [1, 2.5, None, True, "\u00e9\n", {"b": 1, "a": (0,)}]}
_PROBE_JSON = '{"k":[1,2.5,null,true,"\\u00e9\\n",{"a":[0],"b":1}]}'
_checked: list[bool] = []


def _c_agrees() -> bool:
    if not _checked:
        try:
            encode = _make_encoder(None, str, _ascii, None, ":", ",", True, False, False)
            ok = "".join(encode(_PROBE, 0)) == _PROBE_JSON
            value, end = _make_scanner(_Context())(_PROBE_JSON, 0)  # type: ignore[arg-type]
            ok = ok and end == len(_PROBE_JSON) and value == {"k": [1, 2.5, None, True, "\u00e9\n", {"a": [0], "b": 1}]}
        except Exception:
            ok = False
        _checked.append(ok)
    return _checked[0]


def dumps(
    obj: Any,
    *,
    sort_keys: bool = False,
    separators: tuple[str, str] = (", ", ": "),
    default: Callable[[Any], Any] | None = None,
    allow_nan: bool = True,
    ensure_ascii: bool = True,
) -> str:
    """json.dumps with these keyword arguments (and no indent)."""
    if _make_encoder is not None and _c_agrees():
        try:
            encode = _make_encoder(
                None,
                default,  # type: ignore[arg-type]  # None is accepted: an unknown object then fails over to json
                _ascii if ensure_ascii else _plain,
                None,
                separators[1],
                separators[0],
                sort_keys,
                False,
                allow_nan,
            )
            return "".join(encode(obj, 0))
        except (TypeError, ValueError, RecursionError):
            pass  # json says it in its own words below
    import json

    return json.dumps(
        obj, sort_keys=sort_keys, separators=separators, default=default, allow_nan=allow_nan, ensure_ascii=ensure_ascii
    )


def dumps_ascii(obj: Any) -> str:
    """The protocol's encoding: one line of ASCII, compact, no NaN, unknown objects as str."""
    return dumps(obj, separators=(",", ":"), default=str, allow_nan=False)


def loads(text: str | bytes | bytearray, allow_nan: bool = True) -> Any:
    """json.loads(text) for str input; ``allow_nan=False`` refuses NaN/Infinity with ValueError."""
    if _make_encoder is not None and isinstance(text, str) and _c_agrees():
        try:
            scan = _scanners.get(allow_nan)
            if scan is None:
                # the scanner reads the context's attributes; typeshed asks for its own class
                ctx = _Context() if allow_nan else _FiniteContext()
                scan = _scanners[allow_nan] = _make_scanner(ctx)  # type: ignore[arg-type]
            start = len(text) - len(text.lstrip(_WS))
            value, end = scan(text, start)
            if not text[end:].strip(_WS):
                return value
        except (StopIteration, ValueError, TypeError, SystemError):
            # A malformed document: the C scanner reports it through json.decoder,
            # which is not loaded (Python 3.11 then raises SystemError); json words it.
            pass
    import json

    return json.loads(text, parse_constant=None if allow_nan else _FiniteContext.parse_constant)


MAX_DEPTH = 64  # deeper than any answer we use; the encoder's own limit is the interpreter's recursion limit


class Untamed(ValueError):
    """Data that cannot be made JSON-safe (nested deeper than MAX_DEPTH)."""


def tame(obj: Any, max_depth: int = MAX_DEPTH) -> Any:
    """``obj`` made safe for the protocol's encoder, where it is built from foreign JSON.

    Python's JSON reader accepts NaN and Infinity, which the protocol's encoder
    (``allow_nan=False``) refuses at the last moment, losing the whole answer:
    non-finite floats become None here, in place.  Containers nested deeper
    than ``max_depth`` raise Untamed (the caller's provider error).  Iterative,
    so no depth costs a RecursionError.  Returns the tamed object.
    """
    if isinstance(obj, float):
        return obj if obj - obj == 0.0 else None  # inf - inf and nan - nan are nan
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            raise Untamed("nested deeper than %d levels" % max_depth)
        pairs: Iterable[tuple[Any, Any]]
        if isinstance(node, dict):
            pairs = node.items()
        elif isinstance(node, list):
            pairs = enumerate(node)
        else:
            continue
        for key, value in list(pairs):
            if isinstance(value, float):
                if value - value != 0.0:
                    node[key] = None
            elif isinstance(value, (dict, list)):
                stack.append((value, depth + 1))
    return obj
