import assert from "node:assert/strict";
import { test } from "node:test";
import { CancelledError, interpret, NoResultError, WorkerCallError } from "../src/runner.ts";
import { fetchCallLabel, resultLines, resultSummary, searchCallLabel } from "../src/render.ts";

const OKB = 'SEARCH_OK\n{"ok":true,"v":1,"tool":"search","provider":"ddgs","results":[],"text":"none"}\nSEARCH_DONE\n';
const CANCELLED = 'SEARCH_ERROR\n{"ok":false,"v":1,"error":{"code":"cancelled","message":"cancelled by SIGTERM","retryable":false}}\nSEARCH_DONE\n';
const RATE =
	'SEARCH_ERROR\n{"ok":false,"v":1,"error":{"code":"rate_limited","message":"slow down","hint":"wait 7 s","retryable":true,"retry_after":7}}\nSEARCH_DONE\n';

const r = (stdout: string, code: number, killed = false, stderr = "") => ({ stdout, stderr, code, killed });

test("our abort is a cancellation whatever the exit code says", () => {
	// pi reports a signal death as code 0; the worker's own handler exits 130.
	for (const res of [r("", 0, true), r(CANCELLED, 130, true), r(OKB, 0, false), r("", 1)]) {
		assert.throws(() => interpret("web_search", res, true), CancelledError);
	}
	assert.throws(() => interpret("web_search", r(CANCELLED, 130, true), true), /cancelled.*exit code 130/);
});

test("an error block becomes a WorkerCallError with message and hint", () => {
	assert.throws(
		() => interpret("web_search", r(RATE, 1), false),
		(e: unknown) =>
			e instanceof WorkerCallError && e.error.code === "rate_limited" && /slow down/.test(e.message) && /Hint: wait 7 s/.test(e.message),
	);
});

test("a timeout kill is not reported as the user's cancellation", () => {
	assert.throws(() => interpret("web_fetch", r(CANCELLED, 130, true), false), (e: unknown) => e instanceof NoResultError && /time limit/.test((e as Error).message));
	assert.throws(() => interpret("web_fetch", r("", 0, true), false), (e: unknown) => e instanceof NoResultError && /time limit/.test((e as Error).message));
});

test("no block is a NoResultError carrying stderr's tail", () => {
	assert.throws(
		() => interpret("web_fetch", r("SEARCH_OK\n{\"ok\":tr", 0, false, "Traceback...\nMemoryError"), false),
		(e: unknown) => e instanceof NoResultError && /code 0/.test((e as Error).message) && /MemoryError/.test((e as Error).message),
	);
	assert.equal(interpret("web_search", r(`noise\n${OKB}`, 0), false).provider, "ddgs");
});

test("render summaries", () => {
	assert.equal(searchCallLabel({ query: "rust async", provider: "brave", limit: 3 }), '"rust async" (brave, limit 3)');
	assert.equal(searchCallLabel({ query: "rust", news: true, recency: "day" }), '"rust" (news, past day)');
	assert.equal(fetchCallLabel({ urls: ["https://a/", "https://b/"] }), "2 URLs");
	assert.equal(fetchCallLabel({ urls: ["https://a/"] }), "https://a/");
	const fetchPayload = {
		ok: true, v: 1, tool: "fetch", provider: "local", meta: { cached: true },
		results: [{ url: "https://a/", ok: true, title: "A" }, { url: "https://b/", ok: false, error: { code: "http_error", message: "404" } }],
	};
	assert.equal(resultSummary(fetchPayload), "1 of 2 pages · local · cached · 1 failed");
	assert.equal(resultSummary({ ok: true, v: 1, tool: "search", provider: "exa", results: [{}, {}, {}] }), "3 results · exa");
	assert.match(resultLines(fetchPayload)[1], /✗ https:\/\/b\/ \(http_error: 404\)/);
});
