#!/usr/bin/env python
"""Tokens per character of page text, for the hosts' default call budget (issue 29).

Usage (from the repo root, with the dev venv's python):

    python bench/focus/tokens.py

The shared sets' reference texts (WCXB dev, classic-web dev, and the article
benchmark, which holds the only CJK pages), in three groups: CJK (30% or more
CJK characters), code (fenced blocks or 3% punctuation of code), English and
other prose.  Counted with the cl100k and o200k vocabularies that ship inside
the bpe-openai wheel (nothing is downloaded), as characters and as JSON strings
(what an MCP result carries), and per budget unit (a CJK character counts
worker.tools.fit.WIDE_WEIGHT).
"""

import json
import os
import re
import statistics
import sys
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, REPO)
SHARED = os.path.join(os.path.dirname(REPO), "shared", "data")

from worker.tools.fit import weight  # noqa: E402

_CJK = re.compile("[\u3000-\u9fff\uac00-\ud7af]")
_CODE = re.compile(r"[{};=()<>]")


def groups():
    out = {"prose": [], "code": [], "cjk": []}
    texts = []
    for ds in ("wcxb-dev", "classic-web-dev"):
        with open(os.path.join(SHARED, ds, "ground-truth.jsonl"), encoding="utf-8") as f:
            texts += [json.loads(line).get("main_content") or "" for line in f if line.strip()]
    with open(os.path.join(SHARED, "article-extraction-benchmark", "ground-truth.json"), encoding="utf-8") as f:
        texts += [v.get("articleBody") or "" for v in json.load(f).values()]
    for t in texts:
        if len(t) < 500:
            continue
        if len(_CJK.findall(t)) / len(t) >= 0.3:
            out["cjk"].append(t)
        elif len(t) >= 2000 and (t.count("```") >= 2 or len(_CODE.findall(t)) / len(t) > 0.03):
            out["code"].append(t)
        elif len(t) >= 2000:
            out["prose"].append(t)
    return out


def main():
    warnings.simplefilter("ignore", DeprecationWarning)  # bpe_openai reads its vocabulary with open_binary
    import bpe_openai

    encs = {name: bpe_openai.get_encoding(name) for name in ("cl100k_base", "o200k_base")}
    print(
        "%-6s %5s %-12s %8s %8s %8s %10s %10s"
        % ("group", "pages", "vocabulary", "median", "p95", "max", "JSON max", "per unit")
    )
    for group, texts in groups().items():
        for name, enc in encs.items():
            per_char, per_json, per_unit = [], [], []
            for t in texts:
                n = len(enc.encode(t))
                per_char.append(n / len(t))
                per_json.append(len(enc.encode(json.dumps(t, ensure_ascii=False))) / len(t))
                per_unit.append(n / weight(t))
            per_char.sort()
            print(
                "%-6s %5d %-12s %8.3f %8.3f %8.3f %10.3f %10.3f"
                % (
                    group,
                    len(texts),
                    name,
                    statistics.median(per_char),
                    per_char[int(len(per_char) * 0.95)],
                    per_char[-1],
                    max(per_json),
                    max(per_unit),
                )
            )


if __name__ == "__main__":
    main()
