import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { test } from "node:test";
import {
	ARGV_BUDGET_BYTES,
	ArgumentError,
	argvBytes,
	DEFAULT_MAX_TOTAL_CHARS,
	fetchArgs,
	foldFetchArguments,
	searchArgs,
} from "../src/args.ts";

const ROOT = resolve(import.meta.dirname ?? __dirname, "..", "..", "..");
const PY = process.env.WEBSEARCH_PI_TEST_PYTHON || "python3";

/** Parse argv with the worker's real CLI (worker/cli.py is standard library only). */
function workerParse(argv: string[]): Record<string, unknown> {
	const code =
		"import json,sys; sys.path.insert(0, sys.argv[1]); from worker.cli import parse_args; " +
		"a = vars(parse_args(sys.argv[2:])); print(json.dumps(a, default=str))";
	return JSON.parse(execFileSync(PY, ["-c", code, ROOT, ...argv]).toString());
}

test("search: every parameter reaches the worker's CLI as the option it names", () => {
	const argv = searchArgs(
		{
			query: "  -leading dash and --limit  ",
			limit: 7,
			provider: "brave",
			recency: "week",
			news: true,
			include_domains: ["docs.python.org", "peps.python.org"],
			exclude_domains: ["example.com"],
			fetch_top: 2,
			region: "de-de",
			type: "deep",
			category: "research paper",
			start_published: "2024-01-01",
			end_published: "2024-12-31",
			include_text: "asyncio",
			exclude_text: "trio",
			highlights: true,
			summary: true,
			country: "DE",
			search_lang: "de",
		},
		{ allowPrivate: true, config: "/tmp/cfg.json" },
	);
	const a = workerParse(argv);
	assert.equal(a.command, "search");
	assert.equal(a.query, "-leading dash and --limit");
	assert.equal(a.limit, 7);
	assert.equal(a.provider, "brave");
	assert.equal(a.recency, "week");
	assert.equal(a.vertical, "news");
	assert.deepEqual(a.include_domain, ["docs.python.org", "peps.python.org"]);
	assert.deepEqual(a.exclude_domain, ["example.com"]);
	assert.equal(a.fetch_top, 2);
	assert.equal(a.region, "de-de");
	assert.equal(a.search_type, "deep");
	assert.equal(a.category, "research paper");
	assert.equal(a.start_published, "2024-01-01");
	assert.equal(a.end_published, "2024-12-31");
	assert.equal(a.include_text, "asyncio");
	assert.equal(a.exclude_text, "trio");
	assert.equal(a.highlights, true);
	assert.equal(a.summary, true);
	assert.equal(a.country, "DE");
	assert.equal(a.search_lang, "de");
	assert.equal(a.allow_private, true);
	assert.equal(a.config, "/tmp/cfg.json");
});

test("search: queries and sources reach the worker; a phrasing starting with a dash stays a phrasing", () => {
	const a = workerParse(
		searchArgs({ query: "tokio spawn", queries: [" -tokio task panic ", "", "spawn blocking"], sources: ["web", "github"] }),
	);
	assert.equal(a.query, "tokio spawn");
	assert.deepEqual(a.queries, ["-tokio task panic", "spawn blocking"]);
	assert.deepEqual(a.sources, ["web", "github"]);
	assert.deepEqual(searchArgs({ query: "q", queries: [], sources: [] }), ["search", "--", "q"]);
});

test("fetch: every find text reaches the worker as --find", () => {
	const a = workerParse(fetchArgs({ urls: ["https://a.example/"], find: ["-fPIC", " pool size ", " "] }));
	assert.deepEqual(a.find, ["-fPIC", "pool size"]);
});

test("search: unset parameters add nothing", () => {
	assert.deepEqual(searchArgs({ query: "rust async" }), ["search", "--", "rust async"]);
	assert.deepEqual(searchArgs({ query: "q", fetch_top: 0, highlights: false, news: false, provider: " " }), [
		"search",
		"--",
		"q",
	]);
	assert.throws(() => searchArgs({ query: "   " }), ArgumentError);
});

test("fetch: a focus starting with a dash stays the focus; the call budget has the host's default", () => {
	const a = workerParse(fetchArgs({ urls: ["https://a.example/"], focus: " -fPIC means what? " }));
	assert.equal(a.focus, "-fPIC means what?");
	assert.equal(a.max_total_chars, DEFAULT_MAX_TOTAL_CHARS);
	assert.equal(workerParse(fetchArgs({ urls: ["https://a.example/"], max_total_chars: 3000 })).max_total_chars, 3000);
});

test("fetch: urls, options and a leading-dash URL stay positional", () => {
	const argv = fetchArgs({
		urls: ["https://a.example/x", " https://b.example/y ", "", "-not-an-option"],
		max_chars: 5000,
		start_index: 100,
		format: "text",
		provider: "local",
		highlights: true,
		summary: true,
	}, { allowPrivate: true });
	const a = workerParse(argv);
	assert.equal(a.command, "fetch");
	assert.deepEqual(a.urls, ["https://a.example/x", "https://b.example/y", "-not-an-option"]);
	assert.equal(a.max_chars, 5000);
	assert.equal(a.start_index, 100);
	assert.equal(a.fetch_format, "text");
	assert.equal(a.provider, "local");
	assert.equal(a.highlights, true);
	assert.equal(a.summary, true);
	assert.equal(a.allow_private, true);
	assert.deepEqual(fetchArgs({ urls: ["https://a.example/"] }), ["fetch", "--max-total-chars", "12000", "--", "https://a.example/"]);
	assert.throws(() => fetchArgs({ urls: [" "] }), ArgumentError);
});

test("prepareArguments folds a single url into urls", () => {
	assert.deepEqual(foldFetchArguments({ url: "https://a.example/", max_chars: 10 }), { urls: ["https://a.example/"], max_chars: 10 });
	assert.deepEqual(foldFetchArguments({ urls: ["https://a/"], url: "https://b/" }), { urls: ["https://a/", "https://b/"] });
	assert.deepEqual(foldFetchArguments({ urls: "https://a/" }), { urls: ["https://a/"] });
	const untouched = { urls: ["https://a/"] };
	assert.equal(foldFetchArguments(untouched), untouched);
	assert.equal(foldFetchArguments(null), null);
});

test("argv stays far below the 128 KiB exec limit", () => {
	assert.ok(ARGV_BUDGET_BYTES <= 64 * 1024);
	const many = Array.from({ length: 20 }, (_, i) => `https://example.com/${"x".repeat(2000)}/${i}`);
	assert.ok(argvBytes(fetchArgs({ urls: many })) < ARGV_BUDGET_BYTES);
	const huge = Array.from({ length: 20 }, (_, i) => `https://example.com/${"x".repeat(4000)}/${i}`);
	assert.throws(() => fetchArgs({ urls: huge }), (e: unknown) => e instanceof ArgumentError && /KiB/.test((e as Error).message));
	// multi-byte characters count as bytes, not UTF-16 units
	assert.throws(() => searchArgs({ query: "é".repeat(40000) }), ArgumentError);
	assert.doesNotThrow(() => searchArgs({ query: "é".repeat(2000) }));
});

test("fetch: crawl reaches the worker as --crawl; map is the worker's map command of one URL", () => {
	const crawled = workerParse(fetchArgs({ urls: ["https://docs.example/guide/"], crawl: 30, focus: "pool size" }));
	assert.equal(crawled.command, "fetch");
	assert.equal(crawled.crawl, 30);
	assert.equal(crawled.focus, "pool size");
	const mapped = fetchArgs({ urls: ["https://docs.example/guide/"], map: true, crawl: 20 });
	assert.deepEqual(mapped, ["map", "--max-pages", "20", "--", "https://docs.example/guide/"]);
	const parsed = workerParse(mapped);
	assert.equal(parsed.command, "map");
	assert.equal(parsed.max_pages, 20);
	assert.deepEqual(fetchArgs({ urls: ["https://d.example/"], map: true }).slice(0, 3), ["map", "--max-pages", "100"]);
	assert.throws(() => fetchArgs({ urls: ["https://a.example/", "https://b.example/"], map: true }), ArgumentError);
});
