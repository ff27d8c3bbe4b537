/** TypeBox parameter schemas: what the model sees, so the descriptions say when and how. */

import { StringEnum } from "@mariozechner/pi-ai";
import { Type } from "typebox";
import { DEFAULT_MAX_TOTAL_CHARS } from "./args.ts";

const Domains = (what: string) =>
	Type.Optional(Type.Array(Type.String(), { maxItems: 20, description: `${what}, e.g. ["docs.python.org"]` }));

export const SearchSchema = Type.Object({
	query: Type.String({
		minLength: 1,
		maxLength: 2000,
		description: "What to search for, as you would type it into a search engine. Put exact phrases in double quotes.",
	}),
	queries: Type.Optional(
		Type.Array(Type.String({ minLength: 1 }), {
			maxItems: 4,
			description:
				"Up to 4 more phrasings of the same question, searched at once: one list ranked by how many phrasings found each page (each result lists its queries and a score).",
		}),
	),
	sources: Type.Optional(
		Type.Array(StringEnum(["web", "github", "stackexchange"] as const), {
			description:
				"Where to search (default web): github adds issues and pull requests (state, comments), stackexchange Stack Overflow questions (votes, answered). Results are merged into one list.",
		}),
	),
	limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: "Number of results (default 5)." })),
	recency: Type.Optional(
		StringEnum(["day", "week", "month", "year"] as const, {
			description: "Only results published within the last day/week/month/year. Use for news, releases, changelogs.",
		}),
	),
	news: Type.Optional(
		Type.Boolean({
			description:
				"Search news articles instead of the web: results carry published and source. Combine with recency for the latest coverage.",
		}),
	),
	include_domains: Domains("Only return results from these domains"),
	exclude_domains: Domains("Never return results from these domains"),
	fetch_top: Type.Optional(
		Type.Integer({
			minimum: 0,
			maximum: 5,
			description: "Also fetch the top N result pages (0-5) and include an excerpt of each; saves a web_fetch round trip.",
		}),
	),
	provider: Type.Optional(
		Type.String({
			description:
				"Search provider: 'auto' (default), 'ddgs' (no key), 'exa', 'brave', or a provider name from the user's web-search config. Leave unset unless the user asked for one.",
		}),
	),
	region: Type.Optional(Type.String({ description: "Region such as us-en or de-de (ddgs)." })),
	type: Type.Optional(Type.String({ description: "Exa only: search type, e.g. auto, neural, keyword, fast, deep." })),
	category: Type.Optional(
		Type.String({ description: "Exa only: result category, e.g. 'research paper', news, company, pdf, github." }),
	),
	start_published: Type.Optional(Type.String({ description: "Exa only: earliest publication date, YYYY-MM-DD." })),
	end_published: Type.Optional(Type.String({ description: "Exa only: latest publication date, YYYY-MM-DD." })),
	include_text: Type.Optional(Type.String({ description: "Exa only: a phrase every result page must contain." })),
	exclude_text: Type.Optional(Type.String({ description: "Exa only: a phrase no result page may contain." })),
	highlights: Type.Optional(Type.Boolean({ description: "Exa only: include the most relevant passages of each page." })),
	summary: Type.Optional(Type.Boolean({ description: "Exa only: include a short summary of each page." })),
	country: Type.Optional(Type.String({ description: "Brave only: two-letter country code, e.g. US, DE." })),
	search_lang: Type.Optional(Type.String({ description: "Brave only: result language, e.g. en, de." })),
});

export const FetchSchema = Type.Object({
	urls: Type.Array(Type.String({ description: "An http(s) URL" }), {
		minItems: 1,
		maxItems: 20,
		description: "The pages to read (1-20 http(s) URLs), fetched in parallel; results come back in the same order.",
	}),
	max_chars: Type.Optional(
		Type.Integer({ minimum: 1, description: "Characters of content per page (default 20000). Lower it when fetching many pages." }),
	),
	start_index: Type.Optional(
		Type.Integer({
			minimum: 0,
			description: "Continue a long page from this character offset (the previous result says where it stopped).",
		}),
	),
	format: Type.Optional(
		StringEnum(["markdown", "text", "html", "raw"] as const, {
			description: "Content format: markdown (default, main content only), text, html (cleaned), raw (the body as sent).",
		}),
	),
	provider: Type.Optional(
		Type.String({ description: "Fetch provider: 'auto' (default), 'local' (direct HTTP), 'exa', or a configured name." }),
	),
	focus: Type.Optional(
		Type.String({
			minLength: 1,
			description:
				"A question or the words you are looking for: each page gives its passages most relevant to it (verbatim, in page order, each with its character offset: start_index reads on from there) instead of its first characters. Use it on long pages.",
		}),
	),
	find: Type.Optional(
		Type.Array(Type.String({ minLength: 1 }), {
			description:
				"Exact texts to locate (case and spacing ignored): every occurrence in the whole page, counted, each with its character offset (use it as start_index) and the text around it.",
		}),
	),
	max_total_chars: Type.Optional(
		Type.Integer({
			minimum: 200,
			maximum: 10000000,
			description: `Characters of page text for the whole call, shared fairly by the pages (default ${DEFAULT_MAX_TOTAL_CHARS}; a CJK character counts 4). Every page that is cut says where to continue.`,
		}),
	),
	crawl: Type.Optional(
		Type.Integer({
			minimum: 1,
			maximum: 100,
			description:
				"Read up to N pages of the URL's documentation section (its folder and below, or the folder its contents page lists) instead of the URL alone: with focus, the pages best for the question, and the passages that answer it ranked across all of them (each with its page, section and offset); without, the pages in the site's order. Use it when the answer is somewhere in a site's docs and you do not know the page.",
		}),
	),
	map: Type.Optional(
		Type.Boolean({
			description:
				"List the pages of the URL's section (URL, title, where found: sitemap, llms.txt, navigation) instead of reading them; crawl sets how many (default 100). One URL.",
		}),
	),
	render: Type.Optional(
		StringEnum(["auto", "never", "always"] as const, {
			description:
				"Render pages in a browser: auto (default: only pages whose text is built by scripts), never, or always. Items rendered say rendered: true.",
		}),
	),
	highlights: Type.Optional(Type.Boolean({ description: "Exa only: include the most relevant passages." })),
	summary: Type.Optional(Type.Boolean({ description: "Exa only: include a short summary of each page." })),
});
