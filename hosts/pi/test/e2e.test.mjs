// End to end through the real pi package (see harness.mjs).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { call, DEV_PYTHON, fakeBrave, notesServer, PI_DIR, piSession, readyVenv, resultText, say, TMP } from "./harness.mjs";

// A client-rendered page: its text comes from /api/notes by XHR, so only a browser has it.
const APP =
	'<!DOCTYPE html><html><head><title>App</title></head><body><div id="root"></div><script>' +
	"fetch('/api/notes').then(function(r){return r.json()}).then(function(d){var a=document.createElement('article');" +
	"a.innerHTML='<h1>Rendered notes</h1><p>'+d.text+'</p>';document.getElementById('root').appendChild(a)});</script></body></html>";
const APP_TEXT = "The rendered release brings the widget library to version three, with a faster parser and smaller builds.";
// Debian's chromium, or one named for the worker: what the worker itself looks for first.
const BROWSER = process.env.WEBSEARCH_WORKER_BROWSER || "/usr/lib/chromium/chromium";
let web;

before(async () => {
	web = await notesServer({ "/app": ["text/html; charset=utf-8", APP], "/api/notes": ["application/json", JSON.stringify({ text: APP_TEXT })] });
});

after(async () => {
	await web?.close();
	if (!process.env.WEBSEARCH_PI_KEEP_TMP) rmSync(TMP, { recursive: true, force: true });
});


test("web_fetch: a url folded into urls, fetched from a local server, text as content and payload as details", async () => {
	const venv = readyVenv("venv-fetch");
	const s = await piSession({
		flags: { "web-search-venv": venv, "web-search-allow-private": true },
		steps: [
			call("web_fetch", { url: `${web.url}/notes.md` }),
			call("web_fetch", { urls: [`${web.url}/notes.md`, `${web.url}/missing`], max_chars: 30 }),
			say("done"),
		],
	});
	try {
		await s.session.prompt("read the release notes");
		const [first, second] = s.toolEnds();
		assert.equal(first.toolName, "web_fetch");
		assert.equal(first.isError, false, resultText(first));
		assert.match(resultText(first), /quick brown fox ships version 2\.0/);
		const d = first.result.details;
		assert.equal(d.ok, true);
		assert.equal(d.tool, "fetch");
		assert.equal(d.results.length, 1);
		assert.equal(d.results[0].url, `${web.url}/notes.md`);
		assert.equal(d.via, "direct"); // the venv interpreter, learned from bootstrap/run.py --python-path

		assert.equal(second.isError, false, resultText(second));
		const d2 = second.result.details;
		assert.equal(d2.results.length, 2);
		assert.equal(d2.results[0].ok, true);
		assert.ok(d2.results[0].content.length <= 30);
		assert.equal(d2.results[1].ok, false);
		assert.equal(d2.results[1].error.code, "http_error");
		assert.equal(s.toolUpdates().length, 0, "a ready venv shows no install progress");
	} finally {
		await s.dispose();
	}
});

test("web_fetch: a page built by script comes back rendered, with the text its XHR loaded", {
	skip: !existsSync(BROWSER) && process.env.CI !== "true" ? "no Chromium installed (apt-get install chromium); CI installs it" : false,
}, async () => {
	const venv = readyVenv("venv-render");
	const s = await piSession({
		flags: { "web-search-venv": venv, "web-search-allow-private": true },
		steps: [call("web_fetch", { urls: [`${web.url}/app`], render: "auto" }), say("done")],
	});
	try {
		await s.session.prompt("read the app");
		const [end] = s.toolEnds();
		assert.equal(end.isError, false, resultText(end));
		assert.match(resultText(end), /faster parser and smaller builds/);
		const item = end.result.details.results[0];
		assert.equal(item.rendered, true);
		assert.ok(item.render_ms > 0);
	} finally {
		await s.dispose();
	}
});

test("web_fetch: loopback is refused unless the extension allows private addresses", async () => {
	const venv = readyVenv("venv-private");
	const s = await piSession({ flags: { "web-search-venv": venv }, steps: [call("web_fetch", { urls: [`${web.url}/notes.md`] }), say("ok")] });
	try {
		await s.session.prompt("read it");
		const [end] = s.toolEnds();
		assert.equal(end.isError, true);
		assert.match(resultText(end), /web_fetch failed \(blocked_address\)/);
	} finally {
		await s.dispose();
	}
});

test("web_search: the fake Brave API through a config file, then a provider error with its hint", async () => {
	const brave = await fakeBrave();
	const config = join(TMP, "brave-config.json");
	writeFileSync(config, JSON.stringify({ providers: [{ name: "brave", type: "brave", apiKey: brave.key, baseUrl: brave.baseUrl, options: { minInterval: 0 } }] }));
	const s = await piSession({
		flags: { "web-search-python": DEV_PYTHON, "web-search-config": config },
		steps: [
			call("web_search", { query: "full query", provider: "brave", limit: 3, recency: "week" }),
			call("web_search", { query: "limited query", provider: "brave" }),
			call("web_search", { query: "full query", provider: "brave", limit: 3, recency: "week" }),
			say("done"),
		],
	});
	try {
		await s.session.prompt("search");
		const [ok, limited, again] = s.toolEnds();
		assert.equal(ok.isError, false, resultText(ok));
		const d = ok.result.details;
		assert.equal(d.tool, "search");
		assert.equal(d.provider, "brave");
		assert.ok(d.results.length >= 1 && d.results.length <= 3);
		assert.match(resultText(ok), /TypeScript 5\.7/);
		assert.equal(d.via, "python");

		assert.equal(limited.isError, true);
		assert.match(resultText(limited), /web_search failed \(rate_limited\)/);
		assert.match(resultText(limited), /Hint: /);

		assert.equal(again.isError, false, resultText(again));
		assert.equal(ok.result.details.meta.cached, false);
		assert.equal(again.result.details.meta.cached, true);
		assert.deepEqual(again.result.details.results, d.results);

		// The compact rows pi shows, rendered by the registered definitions (plain theme).
		const plain = { fg: (_c, t) => t, bold: (t) => t };
		const render = (c) => c.render(200).map((l) => l.trimEnd()).join("\n");
		const def = s.session.getToolDefinition("web_search");
		assert.equal(render(def.renderCall({ query: "full query", provider: "brave", limit: 3, recency: "week" }, plain, {})), 'web_search "full query" (brave, limit 3, past week)');
		const n = d.results.length;
		assert.equal(render(def.renderResult(ok.result, { expanded: false, isPartial: false }, plain, { isError: false })), `${n} result${n === 1 ? "" : "s"} · brave`);
		assert.equal(render(def.renderResult(again.result, { expanded: false, isPartial: false }, plain, { isError: false })), `${n} result${n === 1 ? "" : "s"} · brave · cached`);
		assert.match(render(def.renderResult(limited.result, { expanded: false, isPartial: false }, plain, { isError: true })), /^web_search failed \(rate_limited\)/);
	} finally {
		await s.dispose();
		brave.close();
	}
});

test("web_search queries and web_fetch find: several phrasings merged into one ranked list, every match of a text", async () => {
	const brave = await fakeBrave();
	const config = join(TMP, "brave-multi-config.json");
	writeFileSync(config, JSON.stringify({ providers: [{ name: "brave", type: "brave", apiKey: brave.key, baseUrl: brave.baseUrl, options: { minInterval: 0 } }] }));
	const s = await piSession({
		flags: { "web-search-python": DEV_PYTHON, "web-search-config": config, "web-search-allow-private": true },
		steps: [
			call("web_search", { query: "full one", queries: ["full two"], provider: "brave" }),
			call("web_fetch", { urls: [`${web.url}/notes.md`], find: ["BROWN   fox"] }),
			say("done"),
		],
	});
	try {
		await s.session.prompt("search and find");
		const [found, page] = s.toolEnds();
		assert.equal(found.isError, false, resultText(found));
		const d = found.result.details;
		assert.deepEqual(d.queries, ["full one", "full two"]);
		assert.ok(d.results.length >= 1);
		for (const r of d.results) {
			assert.deepEqual(r.queries, ["full one", "full two"]); // both phrasings found every page
			assert.equal(typeof r.score, "number");
		}
		assert.match(resultText(found), /found by: full one \| full two/);
		const plain = { fg: (_c, t) => t, bold: (t) => t };
		const def = s.session.getToolDefinition("web_search");
		const label = def.renderCall({ query: "full one", queries: ["full two"], provider: "brave" }, plain, {}).render(200).join("").trim();
		assert.equal(label, 'web_search "full one" (+1 phrasing, brave)');

		assert.equal(page.isError, false, resultText(page));
		const hit = page.result.details.results[0].find[0];
		assert.equal(hit.count, 1);
		assert.match(hit.matches[0].context, /quick brown fox ships/);
		assert.match(resultText(page), /find "BROWN fox": 1 match/);
	} finally {
		await s.dispose();
		brave.close();
	}
});

test("installed as a symlink in the project's .pi/extensions, discovered by pi and finding its checkout", async () => {
	const project = join(TMP, "symlinked-project");
	mkdirSync(join(project, ".pi", "extensions"), { recursive: true });
	symlinkSync(PI_DIR, join(project, ".pi", "extensions", "web-search"));
	const s = await piSession({
		cwd: project,
		extensionPaths: [],
		flags: { "web-search-python": DEV_PYTHON, "web-search-allow-private": true },
		steps: [call("web_fetch", { url: `${web.url}/notes.md` }), say("done")],
	});
	try {
		await s.session.prompt("read it");
		const [end] = s.toolEnds();
		assert.equal(end.isError, false, resultText(end));
		assert.match(resultText(end), /version 2\.0/);
	} finally {
		await s.dispose();
	}
});

test("abort mid-flight: the worker exits 130 on SIGTERM and the tool reports cancellation", async () => {
	const venv = readyVenv("venv-abort");
	const s = await piSession({
		flags: { "web-search-venv": venv, "web-search-allow-private": true },
		steps: [call("web_fetch", { urls: [`${web.url}/stall`] }), say("never reached")],
	});
	try {
		const arrived = web.nextStall();
		const started = Date.now();
		const prompt = s.session.prompt("fetch the slow page");
		await arrived; // the worker is inside its HTTP request now
		const { closed } = web.stalled[web.stalled.length - 1];
		await s.session.abort();
		await prompt;
		await closed; // the worker's connection is gone: the process ended
		const [end] = s.toolEnds();
		assert.equal(end.isError, true);
		assert.match(resultText(end), /web_fetch was cancelled; the worker stopped \(exit code 130\)/);
		// far below the worker's 60 s --timeout: it was the abort, not a timeout
		assert.ok(Date.now() - started < 45_000);
	} finally {
		await s.dispose();
	}
});

test("session shutdown aborts a call in flight", async () => {
	const venv = readyVenv("venv-shutdown");
	const s = await piSession({
		flags: { "web-search-venv": venv, "web-search-allow-private": true },
		steps: [call("web_fetch", { urls: [`${web.url}/stall`] }), say("never reached")],
	});
	const arrived = web.nextStall();
	const prompt = s.session.prompt("fetch the slow page").catch((e) => e);
	await arrived;
	const { closed } = web.stalled[web.stalled.length - 1];
	const started = Date.now();
	// The listener set is gone after dispose, so the proof is the worker itself:
	// its connection closes (the process ended) long before its 60 s --timeout,
	// and the prompt settles.
	await s.dispose(); // emits session_shutdown; the extension waits for its workers to end
	await closed;
	assert.ok(Date.now() - started < 30_000);
	const settled = await Promise.race([prompt.then(() => "settled"), new Promise((r) => setTimeout(() => r("pending"), 10_000))]);
	assert.equal(settled, "settled");
});

test("fast path falls back to the bootstrap when the venv interpreter fails", async () => {
	const venv = readyVenv("venv-broken", { directBroken: true });
	const s = await piSession({
		flags: { "web-search-venv": venv, "web-search-allow-private": true },
		steps: [call("web_fetch", { urls: [`${web.url}/notes.md`] }), say("done")],
	});
	try {
		await s.session.prompt("read it");
		const [end] = s.toolEnds();
		assert.equal(end.isError, false, resultText(end));
		assert.equal(end.result.details.via, "bootstrap");
		assert.match(resultText(end), /version 2\.0/);
	} finally {
		await s.dispose();
	}
});

test("a bootstrap failure is one tool error with the hint, after install progress", async () => {
	const saved = { ...process.env };
	// No package index at all: pip fails at once, deterministically, offline.
	Object.assign(process.env, { PIP_NO_INDEX: "1", WEBSEARCH_WORKER_NO_UV: "1", WEBSEARCH_WORKER_INSTALL_ATTEMPTS: "1" });
	const venv = join(TMP, "venv-fails");
	const s = await piSession({ flags: { "web-search-venv": venv }, steps: [call("web_search", { query: "anything" }), say("done")] });
	try {
		await s.session.prompt("search");
		const [end] = s.toolEnds();
		assert.equal(end.isError, true);
		assert.match(resultText(end), /web_search failed \(bootstrap_failed\): could not install/);
		assert.match(resultText(end), /Hint: /);
		const updates = s.toolUpdates().map((u) => u.partialResult.content[0].text);
		assert.ok(updates.some((t) => /Installing the web search worker into .*venv-fails/.test(t)), updates.join("|"));
	} finally {
		process.env = saved;
		await s.dispose();
	}
});

test("the real bootstrap: first call installs with progress, later calls go straight to the venv", { timeout: 15 * 60_000 }, async () => {
	// The default location: .pi/web-search-venv under the session's cwd.
	const cwd = join(TMP, "project");
	mkdirSync(cwd, { recursive: true });
	const s = await piSession({
		cwd,
		flags: { "web-search-allow-private": true },
		steps: [call("web_fetch", { urls: [`${web.url}/notes.md`] }), call("web_fetch", { urls: [`${web.url}/notes.md`] }), say("done")],
	});
	try {
		await s.session.prompt("read it twice");
		const [first, second] = s.toolEnds();
		assert.equal(first.isError, false, resultText(first));
		assert.match(resultText(first), /version 2\.0/);
		assert.ok(existsSync(join(cwd, ".pi", "web-search-venv", "bin", "python")));
		const updates = s.toolUpdates();
		assert.equal(updates.length, 1, "progress only for the installing call");
		assert.equal(updates[0].toolCallId, first.toolCallId);
		assert.equal(second.isError, false, resultText(second));
		assert.equal(second.result.details.via, "direct");
	} finally {
		await s.dispose();
	}
});
