/**
 * Tool parameters -> worker argv.  Pure functions: no I/O, no pi imports, so
 * the mapping is unit-tested on its own.
 */

export type Source = "web" | "github" | "stackexchange";

export interface SearchParams {
	query: string;
	queries?: string[];
	sources?: Source[];
	limit?: number;
	provider?: string;
	recency?: "day" | "week" | "month" | "year";
	news?: boolean;
	include_domains?: string[];
	exclude_domains?: string[];
	fetch_top?: number;
	region?: string;
	// Exa
	type?: string;
	category?: string;
	start_published?: string;
	end_published?: string;
	include_text?: string;
	exclude_text?: string;
	highlights?: boolean;
	summary?: boolean;
	// Brave
	country?: string;
	search_lang?: string;
}

export interface FetchParams {
	urls: string[];
	max_chars?: number;
	start_index?: number;
	format?: "markdown" | "text" | "html" | "raw";
	provider?: string;
	focus?: string;
	find?: string[];
	crawl?: number;
	map?: boolean;
	max_total_chars?: number;
	render?: "auto" | "never" | "always";
	highlights?: boolean;
	summary?: boolean;
}

/** Page text for a whole web_fetch call when the model does not say (worker/tool_schemas.py HOST_MAX_TOTAL_CHARS). */
export const DEFAULT_MAX_TOTAL_CHARS = 12000;

/** Options every call gets from the extension's settings (not from the model). */
export interface CommonOptions {
	allowPrivate?: boolean;
	config?: string;
	timeoutSeconds?: number;
}

/**
 * pi.exec throws E2BIG once one argument passes 128 KiB (and the kernel caps
 * argv + environment together); stay far below both.
 */
export const ARGV_BUDGET_BYTES = 64 * 1024;

export class ArgumentError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "ArgumentError";
	}
}

function common(opts: CommonOptions): string[] {
	const out: string[] = [];
	if (opts.config) out.push("--config", opts.config);
	if (opts.allowPrivate) out.push("--allow-private");
	if (opts.timeoutSeconds) out.push("--timeout", String(opts.timeoutSeconds));
	return out;
}

const str = (v: unknown): v is string => typeof v === "string" && v.trim() !== "";
const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

function pushValue(out: string[], flag: string, v: unknown) {
	if (str(v)) out.push(flag, v.trim());
	else if (num(v)) out.push(flag, String(Math.trunc(v)));
}

export function searchArgs(p: SearchParams, opts: CommonOptions = {}): string[] {
	const query = (p.query ?? "").trim();
	if (!query) throw new ArgumentError("web_search needs a non-empty query");
	const out = ["search", ...common(opts)];
	// --query=TEXT, --find=TEXT: a phrasing starting with "-" is never read as an option.
	for (const q of p.queries ?? []) if (str(q)) out.push(`--query=${q.trim()}`);
	const sources = (p.sources ?? []).filter(str);
	if (sources.length) out.push(`--sources=${sources.join(",")}`);
	pushValue(out, "--limit", p.limit);
	pushValue(out, "--provider", p.provider);
	pushValue(out, "--recency", p.recency);
	if (p.news) out.push("--news");
	for (const d of p.include_domains ?? []) pushValue(out, "--include-domain", d);
	for (const d of p.exclude_domains ?? []) pushValue(out, "--exclude-domain", d);
	if (num(p.fetch_top) && p.fetch_top > 0) pushValue(out, "--fetch-top", p.fetch_top);
	pushValue(out, "--region", p.region);
	pushValue(out, "--type", p.type);
	pushValue(out, "--category", p.category);
	pushValue(out, "--start-published", p.start_published);
	pushValue(out, "--end-published", p.end_published);
	pushValue(out, "--include-text", p.include_text);
	pushValue(out, "--exclude-text", p.exclude_text);
	if (p.highlights) out.push("--highlights");
	if (p.summary) out.push("--summary");
	pushValue(out, "--country", p.country);
	pushValue(out, "--search-lang", p.search_lang);
	// "--" so a query starting with "-" is never read as an option.
	out.push("--", query);
	return checkBudget(out);
}

/** Pages web_fetch's map lists unless crawl says (worker/tool_schemas.py MAP_PAGES). */
export const DEFAULT_MAP_PAGES = 100;

export function fetchArgs(p: FetchParams, opts: CommonOptions = {}): string[] {
	const urls = (p.urls ?? []).map((u) => (typeof u === "string" ? u.trim() : "")).filter((u) => u !== "");
	if (urls.length === 0) throw new ArgumentError("web_fetch needs at least one URL in urls");
	if (p.map) {
		// the worker's map command: the section's pages, crawl of them at most
		if (urls.length !== 1) throw new ArgumentError(`web_fetch with map takes one URL (the section's start page); got ${urls.length}`);
		const pages = num(p.crawl) && p.crawl > 0 ? p.crawl : DEFAULT_MAP_PAGES;
		return checkBudget(["map", ...common(opts), "--max-pages", String(Math.trunc(pages)), "--", urls[0]]);
	}
	const out = ["fetch", ...common(opts)];
	pushValue(out, "--max-chars", p.max_chars);
	if (num(p.start_index) && p.start_index > 0) pushValue(out, "--start-index", p.start_index);
	pushValue(out, "--format", p.format);
	pushValue(out, "--provider", p.provider);
	// --focus=TEXT: a question starting with "-" is never read as an option.
	if (str(p.focus)) out.push(`--focus=${p.focus.trim()}`);
	for (const f of p.find ?? []) if (str(f)) out.push(`--find=${f.trim()}`);
	pushValue(out, "--max-total-chars", num(p.max_total_chars) ? p.max_total_chars : DEFAULT_MAX_TOTAL_CHARS);
	if (num(p.crawl) && p.crawl > 0) pushValue(out, "--crawl", p.crawl);
	pushValue(out, "--render", p.render);
	if (p.highlights) out.push("--highlights");
	if (p.summary) out.push("--summary");
	out.push("--", ...urls);
	return checkBudget(out);
}

export function argvBytes(argv: string[]): number {
	let n = 0;
	for (const a of argv) n += Buffer.byteLength(a, "utf8") + 1;
	return n;
}

export function checkBudget(argv: string[]): string[] {
	const n = argvBytes(argv);
	if (n > ARGV_BUDGET_BYTES) {
		throw new ArgumentError(
			`the arguments are ${Math.ceil(n / 1024)} KiB, over the ${ARGV_BUDGET_BYTES / 1024} KiB limit: ` +
				"use a shorter query, or fewer or shorter URLs per call",
		);
	}
	return argv;
}

/** web_fetch's prepareArguments: a model that sends `url` (or a string `urls`) still gets a valid call. */
export function foldFetchArguments(args: unknown): unknown {
	if (!args || typeof args !== "object" || Array.isArray(args)) return args;
	const input = args as Record<string, unknown>;
	if (!("url" in input) && typeof input.urls !== "string") return args;
	let urls: unknown[] | undefined = Array.isArray(input.urls) ? [...input.urls] : undefined;
	if (typeof input.urls === "string") urls = [input.urls];
	if (typeof input.url === "string" && input.url.trim() !== "") urls = [...(urls ?? []), input.url];
	const { url: _url, ...rest } = input;
	return { ...rest, urls: urls ?? [] };
}
