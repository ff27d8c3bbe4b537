/**
 * One-line summaries for the tool rows.  Pure string functions; index.ts
 * wraps them in pi-tui components and colours.
 */

import type { WorkerPayload } from "./protocol.ts";

export function shorten(text: string, max: number): string {
	const one = text.replace(/\s+/g, " ").trim();
	return one.length <= max ? one : `${one.slice(0, Math.max(0, max - 1))}…`;
}

export function searchCallLabel(args: {
	query?: unknown;
	queries?: unknown;
	sources?: unknown;
	provider?: unknown;
	limit?: unknown;
	recency?: unknown;
	news?: unknown;
}): string {
	const q = typeof args.query === "string" ? `"${shorten(args.query, 80)}"` : "…";
	const extra: string[] = [];
	const more = Array.isArray(args.queries) ? args.queries.filter((x) => typeof x === "string" && x.trim()).length : 0;
	if (more) extra.push(`+${more} phrasing${more === 1 ? "" : "s"}`);
	if (Array.isArray(args.sources) && args.sources.length) extra.push(args.sources.join("+"));
	if (typeof args.provider === "string" && args.provider) extra.push(args.provider);
	if (typeof args.limit === "number") extra.push(`limit ${args.limit}`);
	if (args.news === true) extra.push("news");
	if (typeof args.recency === "string") extra.push(`past ${args.recency}`);
	return extra.length ? `${q} (${extra.join(", ")})` : q;
}

export function fetchCallLabel(args: { urls?: unknown; url?: unknown }): string {
	const urls = Array.isArray(args.urls) ? args.urls.filter((u) => typeof u === "string") : [];
	if (typeof args.url === "string") urls.push(args.url);
	if (urls.length === 0) return "…";
	if (urls.length === 1) return shorten(urls[0] as string, 100);
	return `${urls.length} URLs`;
}

export function isCached(p: WorkerPayload | undefined): boolean {
	if (!p) return false;
	const meta = (p.meta ?? {}) as Record<string, unknown>;
	return p.cached === true || meta.cached === true || meta.cache === "hit";
}

/** "5 results · ddgs · cached" / "2 of 3 pages · local · 1 failed" */
export function resultSummary(p: WorkerPayload | undefined): string {
	if (!p || !p.ok) return "no result";
	const results = Array.isArray(p.results) ? p.results : [];
	const parts: string[] = [];
	if (p.tool === "fetch") {
		const failed = results.filter((r) => r && r.ok === false).length;
		parts.push(`${results.length - failed} of ${results.length} page${results.length === 1 ? "" : "s"}`);
		if (p.provider) parts.push(String(p.provider));
		if (isCached(p)) parts.push("cached");
		if (failed) parts.push(`${failed} failed`);
	} else {
		parts.push(`${results.length} result${results.length === 1 ? "" : "s"}`);
		if (p.provider) parts.push(String(p.provider));
		if (isCached(p)) parts.push("cached");
	}
	return parts.join(" · ");
}

/** Expanded view: one line per result. */
export function resultLines(p: WorkerPayload | undefined, max = 20): string[] {
	if (!p || !Array.isArray(p.results)) return [];
	return p.results.slice(0, max).map((r, i) => {
		const url = typeof r.url === "string" ? r.url : "";
		if (r.ok === false) {
			const err = (r.error ?? {}) as { code?: string; message?: string };
			return `${i + 1}. ✗ ${shorten(url, 80)} (${err.code ?? "error"}: ${shorten(err.message ?? "", 80)})`;
		}
		const title = typeof r.title === "string" && r.title ? shorten(r.title, 80) : "";
		return `${i + 1}. ${title ? `${title} — ` : ""}${shorten(url, 80)}`;
	});
}
