/**
 * pi extension: web_search and web_fetch, answered by websearch-worker.
 *
 * Install: symlink or copy this directory to .pi/extensions/web-search/ (or
 * ~/.pi/agent/extensions/web-search/), or run `pi -e hosts/pi`.  Settings
 * (flags or environment) are listed in src/settings.ts and the README.
 */

import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead } from "@mariozechner/pi-coding-agent";
import { Text } from "@mariozechner/pi-tui";
import { type CommonOptions, fetchArgs, foldFetchArguments, searchArgs } from "./src/args.ts";
import type { WorkerPayload } from "./src/protocol.ts";
import { fetchCallLabel, resultLines, resultSummary, searchCallLabel, shorten } from "./src/render.ts";
import { PreparedWorker } from "./src/prepared.ts";
import { type Exec, WorkerRunner } from "./src/runner.ts";
import { FetchSchema, SearchSchema } from "./src/schemas.ts";
import { FLAGS, resolveSettings } from "./src/settings.ts";

const STATUS_KEY = "web-search";
/** pi.exec's safety net above the worker's own --timeout (default 60 s). */
const CALL_TIMEOUT_MS = 120_000;
const INSTALL_TIMEOUT_MS = 20 * 60_000;

export interface ToolDetails extends Partial<WorkerPayload> {
	phase?: "installing";
	via?: string;
	truncated?: boolean;
}

/** Keep the model's context bounded whatever the worker returned. */
function boundText(text: string): { text: string; truncated: boolean } {
	const t = truncateHead(text, { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES });
	if (!t.truncated) return { text, truncated: false };
	return {
		text:
			`${t.content}\n\n[Output truncated to ${formatSize(t.outputBytes)} of ${formatSize(t.totalBytes)}: ` +
			"ask for fewer results or URLs, lower max_chars, or continue with start_index.]",
		truncated: true,
	};
}

export default function webSearchExtension(pi: ExtensionAPI) {
	const exec: Exec = (command, args, options) => pi.exec(command, args, options);
	const runner = new WorkerRunner(exec, new PreparedWorker());

	pi.registerFlag(FLAGS.venv, { description: "web-search: the worker's venv (default .pi/web-search-venv)", type: "string" });
	pi.registerFlag(FLAGS.python, { description: "web-search: a ready Python to run the worker with, skipping the bootstrap", type: "string" });
	pi.registerFlag(FLAGS.config, { description: "web-search: the worker's config file", type: "string" });
	pi.registerFlag(FLAGS.allowPrivate, {
		description: "web-search: let web_fetch reach loopback and private addresses (local docs servers)",
		type: "boolean",
		default: false,
	});

	async function run(tool: string, argsFor: (o: CommonOptions) => string[], signal: AbortSignal | undefined, onUpdate: ((r: { content: { type: "text"; text: string }[]; details: ToolDetails }) => void) | undefined, ctx: ExtensionContext) {
		const settings = resolveSettings(ctx.cwd, (name) => pi.getFlag(name));
		const argv = argsFor({ allowPrivate: settings.allowPrivate, config: settings.config });
		let statusShown = false;
		try {
			const outcome = await runner.run(argv, {
				tool,
				settings,
				signal,
				cwd: ctx.cwd,
				timeoutMs: CALL_TIMEOUT_MS,
				installTimeoutMs: INSTALL_TIMEOUT_MS,
				onProgress: (message) => {
					onUpdate?.({ content: [{ type: "text", text: message }], details: { phase: "installing" } });
					if (ctx.hasUI) {
						ctx.ui.setStatus(STATUS_KEY, message);
						statusShown = true;
					}
				},
			});
			const payload = outcome.payload;
			const bounded = boundText(typeof payload.text === "string" && payload.text ? payload.text : JSON.stringify(payload.results ?? []));
			return {
				content: [{ type: "text" as const, text: bounded.text }],
				details: { ...payload, via: outcome.via, truncated: bounded.truncated } as ToolDetails,
			};
		} finally {
			if (statusShown) ctx.ui.setStatus(STATUS_KEY, undefined);
		}
	}

	function renderResult(result: { content: Array<{ type: string; text?: string }>; details?: ToolDetails }, options: { expanded: boolean; isPartial: boolean }, theme: any, context: { isError?: boolean }) {
		const first = result.content?.find((c) => c.type === "text")?.text ?? "";
		if (options.isPartial) return new Text(theme.fg("warning", shorten(first || "working…", 120)), 0, 0);
		if (context?.isError || !result.details?.ok) return new Text(theme.fg("error", shorten(first.split("\n")[0] || "failed", 160)), 0, 0);
		let text = theme.fg("success", resultSummary(result.details as WorkerPayload));
		if (result.details.truncated) text += theme.fg("warning", " · truncated");
		if (options.expanded) {
			for (const line of resultLines(result.details as WorkerPayload)) text += `\n${theme.fg("dim", line)}`;
		}
		return new Text(text, 0, 0);
	}

	pi.registerTool({
		name: "web_search",
		label: "Web Search",
		description:
			"Search the web and get a numbered list of results (title, URL, snippet). Use it for anything outside the repository: " +
			"current documentation, error messages, library versions, news. Then call web_fetch on the most promising URLs to read them. " +
			`Output is capped at ${DEFAULT_MAX_LINES} lines / ${formatSize(DEFAULT_MAX_BYTES)}.`,
		promptSnippet: "Search the web (returns titles, URLs, snippets)",
		promptGuidelines: [
			"Use web_search for facts that may have changed since training (versions, APIs, releases) and cite the URLs you relied on.",
			"Use web_fetch to read a page found with web_search before relying on its details.",
		],
		parameters: SearchSchema,
		async execute(_id, params, signal, onUpdate, ctx) {
			return run("web_search", (o) => searchArgs(params, o), signal, onUpdate, ctx);
		},
		renderCall(args, theme) {
			return new Text(theme.fg("toolTitle", theme.bold("web_search ")) + theme.fg("accent", searchCallLabel(args)), 0, 0);
		},
		renderResult,
	});

	pi.registerTool({
		name: "web_fetch",
		label: "Web Fetch",
		description:
			"Read web pages as clean markdown (main content only; PDFs as text). Pass one or more http(s) URLs; " +
			"each page comes back in order, a failed URL says why without failing the others. " +
			"Long pages are cut at max_chars (and all pages together at max_total_chars); continue with start_index. " +
			"Pass focus (the question) to get each page's passages that answer it, with their offsets. " +
			"For a question about a documentation site, pass its section's URL with crawl (pages to read) and focus: the passages that answer it, across the section. " +
			`Output is capped at ${DEFAULT_MAX_LINES} lines / ${formatSize(DEFAULT_MAX_BYTES)}.`,
		promptSnippet: "Read web pages as clean markdown",
		parameters: FetchSchema,
		prepareArguments: (args) => foldFetchArguments(args) as any,
		async execute(_id, params, signal, onUpdate, ctx) {
			return run("web_fetch", (o) => fetchArgs(params, o), signal, onUpdate, ctx);
		},
		renderCall(args, theme) {
			return new Text(theme.fg("toolTitle", theme.bold("web_fetch ")) + theme.fg("accent", fetchCallLabel(args)), 0, 0);
		},
		renderResult,
	});

	// A session that ends (quit, /new, /resume, /fork, reload) takes its calls with it.
	pi.on("session_shutdown", async () => {
		await runner.abortAll();
		runner.prepared?.close();
	});
}
