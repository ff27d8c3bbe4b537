"""A fake Exa API on 127.0.0.1, strict about what the real exa-py sends.

It accepts POST /search and POST /contents with the ``x-api-key`` header and a
camelCase JSON body (the field names of Exa's API reference), rejects unknown or
snake_case fields with HTTP 400 (so a mapping mistake fails loudly), and answers
with bodies shaped like Exa's documented responses (requestId,
resolvedSearchType, results, statuses, costDollars, searchTime, output).

Scenarios, by the query's first word or the URL's path:

    search "status401" / "status402" / "status429" / "status500"   that HTTP error
        (401's body echoes the key it was given, as a careless API might: tests
        check the worker scrubs it; 429 carries Retry-After: 7, ``server.retry_after``)
    search "slow ..."                                              sleeps 3 s first
    contents URL path /missing/...                                 status error CRAWL_NOT_FOUND 404
    contents URL path /timeout/...                                 status error CRAWL_LIVECRAWL_TIMEOUT
    contents URL path /status500/...                               HTTP 500 for the whole call

``server.bodies[word]`` answers a search whose query starts with ``word`` (or,
under the key "contents", every contents request) with that 200 body instead (a
str is sent as it is: JSON text a real encoder would not write).

``server.script`` is a list of outcomes consumed one per search request
before the scenarios above: "429", "503" (both with ``server.retry_after``),
"402", "500", "slow" (3 s, then the normal answer), "hang" (10 s, then 503) or "ok".

Every request is recorded in ``server.requests`` as dicts (path, headers, body).
"""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from fakes import answers

KEY = "test-exa-key-0123456789abcdef"

SEARCH_FIELDS = {
    "query",
    "numResults",
    "type",
    "category",
    "includeDomains",
    "excludeDomains",
    "startPublishedDate",
    "endPublishedDate",
    "startCrawlDate",
    "endCrawlDate",
    "includeText",
    "excludeText",
    "userLocation",
    "moderation",
    "additionalQueries",
    "systemPrompt",
    "outputSchema",
    "contents",
    "flags",
}
CONTENT_FIELDS = {
    "text",
    "highlights",
    "summary",
    "livecrawl",
    "livecrawlTimeout",
    "maxAgeHours",
    "subpages",
    "subpageTarget",
    "extras",
}
CONTENTS_FIELDS = CONTENT_FIELDS | {"urls"}
TEXT_FIELDS = {"maxCharacters", "includeHtmlTags"}
HIGHLIGHT_FIELDS = {"maxCharacters", "query", "numSentences", "highlightsPerUrl"}
EXTRAS_FIELDS = {"links", "imageLinks"}
DEEP_TYPES = {"deep", "deep-lite", "deep-reasoning"}

PAGE_TEXT = ("Exa fake page text. " * 200).strip()


class BadRequest(Exception):
    pass


def _check_keys(where, obj, allowed):
    if not isinstance(obj, dict):
        raise BadRequest("%s must be an object" % where)
    unknown = sorted(set(obj) - allowed)
    if unknown:
        raise BadRequest("%s: unknown field(s) %s" % (where, ", ".join(unknown)))


def check_contents(where, contents):
    _check_keys(where, contents, CONTENTS_FIELDS if where == "body" else CONTENT_FIELDS)
    for key, allowed in (("text", TEXT_FIELDS), ("highlights", HIGHLIGHT_FIELDS), ("summary", {"query", "schema"})):
        value = contents.get(key)
        if isinstance(value, dict):
            _check_keys("%s.%s" % (where, key), value, allowed)
        elif key in contents and value is not True and value is not False:
            raise BadRequest("%s.%s must be a boolean or an object" % (where, key))
    if "extras" in contents:
        _check_keys(where + ".extras", contents["extras"], EXTRAS_FIELDS)


def check_search(body):
    _check_keys("body", body, SEARCH_FIELDS)
    if not isinstance(body.get("query"), str) or not body["query"]:
        raise BadRequest("query is required")
    n = body.get("numResults", 10)
    if not isinstance(n, int) or not 1 <= n <= 100:
        raise BadRequest("numResults must be 1-100")
    for key in ("includeText", "excludeText"):
        if key in body:
            v = body[key]
            if not (isinstance(v, list) and len(v) == 1 and len(v[0].split()) <= 5):
                raise BadRequest("%s: only 1 string of up to 5 words is supported" % key)
    if "additionalQueries" in body and body.get("type") not in DEEP_TYPES:
        raise BadRequest("additionalQueries requires a deep search type")
    if "contents" in body:
        check_contents("contents", body["contents"])


def search_answer(body):
    n = body.get("numResults", 10)
    contents = body.get("contents") or {}
    host = (body.get("includeDomains") or ["example.com"])[0]
    results = []
    for i in range(1, n + 1):
        r = {
            "id": "https://%s/exa/%d" % (host, i),
            "url": "https://%s/exa/%d" % (host, i),
            "title": "Exa result %d for %s" % (i, body["query"]),
            "score": round(1.0 - i / 100.0, 3),
            "publishedDate": "2025-01-%02dT00:00:00.000Z" % (i % 28 + 1),
            "author": "Author %d" % i,
            "favicon": "https://%s/favicon.ico" % host,
        }
        if contents.get("text"):
            limit = contents["text"].get("maxCharacters", 10000) if isinstance(contents["text"], dict) else 10000
            r["text"] = PAGE_TEXT[:limit]
        if contents.get("highlights"):
            r["highlights"] = ["highlight %d about %s" % (i, body["query"])]
            r["highlightScores"] = [0.5]
        if contents.get("summary"):
            r["summary"] = "Summary of result %d." % i
        results.append(r)
    answer = {
        "requestId": "req-search-%d" % n,
        "resolvedSearchType": "neural" if body.get("type", "auto") == "auto" else body["type"],
        "searchType": body.get("type", "auto"),
        "results": results,
        "costDollars": {"total": 0.005, "search": {"neural": 0.005}},
        "searchTime": 123.4,
    }
    if body.get("type") in DEEP_TYPES or "outputSchema" in body:
        answer["output"] = {
            "content": "Synthesised answer about %s." % body["query"],
            "grounding": [
                {
                    "field": "content",
                    "citations": [{"url": results[0]["url"] if results else "", "title": "Exa result 1"}],
                    "confidence": "high",
                }
            ],
        }
    return answer


def contents_answer(body):
    urls = body["urls"]
    text_opts = body.get("text")
    limit = text_opts.get("maxCharacters", 10000) if isinstance(text_opts, dict) else 10000
    results, statuses = [], []
    for url in urls:
        path = urlsplit(url).path
        if path.startswith("/missing/"):
            statuses.append({"id": url, "status": "error", "error": {"tag": "CRAWL_NOT_FOUND", "httpStatusCode": 404}})
            continue
        if path.startswith("/timeout/"):
            statuses.append(
                {"id": url, "status": "error", "error": {"tag": "CRAWL_LIVECRAWL_TIMEOUT", "httpStatusCode": None}}
            )
            continue
        statuses.append({"id": url, "status": "success", "source": "cached"})
        r = {
            "id": url,
            "url": url,
            "title": "Page at %s" % path,
            "author": "Fake Author",
            "publishedDate": "2024-06-01T00:00:00.000Z",
        }
        if text_opts:
            text = "# Page %s\n\n%s" % (path, PAGE_TEXT)
            if isinstance(text_opts, dict) and text_opts.get("includeHtmlTags"):
                text = "<h1>Page %s</h1><p>%s</p>" % (path, PAGE_TEXT)
            r["text"] = text[:limit]
        if body.get("highlights"):
            r["highlights"] = ["a highlight of %s" % path]
        if body.get("summary"):
            r["summary"] = "A summary of %s." % path
        extras = body.get("extras") or {}
        if extras:
            r["extras"] = {}
            if extras.get("links"):
                r["extras"]["links"] = ["https://example.com/link/%d" % i for i in range(extras["links"])]
            if extras.get("imageLinks"):
                r["extras"]["imageLinks"] = ["https://example.com/img/%d.png" % i for i in range(extras["imageLinks"])]
        if body.get("subpages"):
            r["subpages"] = [
                {"id": url + "/sub%d" % i, "url": url + "/sub%d" % i, "title": "Subpage %d" % i}
                for i in range(body["subpages"])
            ]
        results.append(r)
    return {
        "requestId": "req-contents-%d" % len(urls),
        "results": results,
        "statuses": statuses,
        "costDollars": {"total": 0.001 * len(results)},
        "searchTime": 45.6,
    }


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, status, payload, headers=None):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        record = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "raw": raw}
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        record["body"] = body
        self.server.requests.append(record)
        key = self.headers.get("x-api-key")
        if key != self.server.key:
            return self._send(
                401, {"requestId": "req-401", "error": "Invalid API key %s" % key, "tag": "INVALID_API_KEY"}
            )
        if "application/json" not in (self.headers.get("Content-Type") or ""):
            return self._send(400, {"error": "Content-Type must be application/json"})
        if not isinstance(body, dict):
            return self._send(400, {"error": "body must be a JSON object"})
        try:
            if self.path == "/search":
                check_search(body)
                scenario = body["query"].split()[0]
            elif self.path == "/contents":
                check_contents("body", body)
                if not isinstance(body.get("urls"), list) or not body["urls"]:
                    raise BadRequest("urls is required")
                scenario = "status500" if any(urlsplit(u).path.startswith("/status500/") for u in body["urls"]) else ""
            else:
                return self._send(404, {"error": "no such endpoint %s" % self.path})
        except BadRequest as exc:
            return self._send(400, {"requestId": "req-400", "error": str(exc), "tag": "INVALID_REQUEST_BODY"})
        step = self.server.script.pop(0) if self.path == "/search" and self.server.script else "ok"
        if step == "503":
            after = self.server.retry_after
            return self._send(
                503, {"requestId": "req-503", "error": "overloaded"}, {"Retry-After": after} if after else {}
            )
        if step in ("429", "402", "500"):
            scenario = "status" + step
        elif step == "slow":
            time.sleep(3)
        elif step == "hang":
            time.sleep(10)
            return self._send(503, {"error": "late"})
        if scenario == "status401":
            return self._send(
                401, {"requestId": "req-401", "error": "Invalid API key %s" % key, "tag": "INVALID_API_KEY"}
            )
        if scenario == "status402":
            return self._send(
                402, {"requestId": "req-402", "error": "You have exceeded your credits limit", "tag": "NO_MORE_CREDITS"}
            )
        if scenario == "status429":
            after = self.server.retry_after
            return self._send(
                429, {"requestId": "req-429", "error": "Rate limit exceeded"}, {"Retry-After": after} if after else {}
            )
        if scenario == "status500":
            return self._send(500, {"requestId": "req-500", "error": "Internal server error"})
        if scenario == "slow":
            time.sleep(3)
        hostile = self.server.bodies.get(scenario if self.path == "/search" else "contents")
        if hostile is not None:
            return answers.send(self, hostile)
        self._send(
            200,
            search_answer(body) if self.path == "/search" else contents_answer(body),
            {"x-request-id": "hdr-" + self.path.strip("/")},
        )


class ExaServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, key=KEY):
        super().__init__(("127.0.0.1", 0), Handler)
        self.key = key
        self.requests = []
        self.script = []
        self.retry_after = "7"  # the Retry-After of its 429s and scripted 503s (None: no header)
        self.bodies = {}

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.server_address[1]

    def provider_entry(self, name="exa"):
        """A config file's entry for this server: its key and address."""
        return {"name": name, "type": "exa", "apiKey": self.key, "baseUrl": self.url}


def start(key=KEY):
    server = ExaServer(key)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


if __name__ == "__main__":
    s = start()
    print(s.url, flush=True)
    threading.Event().wait()
