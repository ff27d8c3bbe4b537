// End-to-end harness: the real pi package loads hosts/pi with its own
// extension loader, a scripted faux model makes the tool calls, and pi.exec
// (pi's own) runs the real worker.  Plain ESM so pi runs natively, not through
// a test-time transpiler; pi itself loads index.ts with its jiti, as in use.

import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fauxAssistantMessage, fauxText, fauxToolCall, registerFauxProvider } from "@mariozechner/pi-ai";
import {
	AuthStorage,
	createAgentSessionFromServices,
	createAgentSessionRuntime,
	createAgentSessionServices,
	ModelRegistry,
	SessionManager,
	SettingsManager,
} from "@mariozechner/pi-coding-agent";

export const PI_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const ROOT = resolve(PI_DIR, "..", "..");
export const DEV_PYTHON = process.env.WEBSEARCH_PI_TEST_PYTHON;
if (!DEV_PYTHON) throw new Error("set WEBSEARCH_PI_TEST_PYTHON to a Python with the worker's dev requirements (test.sh does)");

export const TMP = mkdtempSync(join(tmpdir(), "websearch-pi-e2e-"));

// The worker inherits pi's environment (pi.exec has no env option): isolate it.
process.env.WEBSEARCH_WORKER_TMPDIR = join(TMP, "calltmp");
process.env.WEBSEARCH_CONFIG = join(TMP, "no-config.json");
process.env.XDG_CACHE_HOME = join(TMP, "cache");
for (const k of ["EXA_API_KEY", "BRAVE_API_KEY", "HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "WEBSEARCH_PI_VENV", "WEBSEARCH_WORKER_VENV", "WEBSEARCH_PI_PYTHON", "WEBSEARCH_PI_ALLOW_PRIVATE", "WEBSEARCH_PI_CONFIG"]) {
	delete process.env[k];
}

/**
 * A venv the bootstrap considers ready (its own stamp, written by its own
 * code) whose interpreter is a wrapper around the dev Python.  ``directBroken``
 * makes the wrapper fail unless started by bootstrap/run.py, to exercise the
 * fallback from the fast path.
 */
export function readyVenv(name, { directBroken = false } = {}) {
	const venv = join(TMP, name);
	mkdirSync(join(venv, "bin"), { recursive: true });
	const guard = directBroken ? '[ -n "$WEBSEARCH_WORKER_PROG" ] || { echo "broken interpreter" >&2; exit 3; }\n' : "";
	writeFileSync(join(venv, "bin", "python"), `#!/bin/sh\n${guard}exec "${DEV_PYTHON}" "$@"\n`);
	chmodSync(join(venv, "bin", "python"), 0o755);
	execFileSync(DEV_PYTHON, ["-c", "import sys; sys.path.insert(0, sys.argv[1]); import run; run.write_stamp(sys.argv[2], run.read_inputs())", join(ROOT, "bootstrap"), venv]);
	return venv;
}

/** A local HTTP server; handler(req, res). Returns {url, server, sockets, close}. */
export async function httpServer(handler) {
	const server = createServer(handler);
	const sockets = new Set();
	server.on("connection", (s) => {
		sockets.add(s);
		s.on("close", () => sockets.delete(s));
	});
	await new Promise((r) => server.listen(0, "127.0.0.1", r));
	const url = `http://127.0.0.1:${server.address().port}`;
	return {
		url,
		server,
		sockets,
		close: () => {
			for (const s of sockets) s.destroy();
			return new Promise((r) => server.close(r));
		},
	};
}

export const NOTES = "# Release notes\n\nThe quick brown fox ships version 2.0 of the widget library.\n";

/**
 * A local site: ``/notes.md`` (NOTES), ``/stall`` (never answers: the worker sits in its HTTP
 * read until it is stopped), ``routes`` ({path: [content type, body]}), 404 otherwise.
 * ``stalled`` lists the requests /stall holds ({req, res, closed: Promise}); ``nextStall()``
 * resolves when the next one arrives.
 */
export async function notesServer(routes = {}) {
	const stalled = [];
	const waiters = [];
	const server = await httpServer((req, res) => {
		const route = req.url === "/notes.md" ? ["text/markdown; charset=utf-8", NOTES] : routes[req.url];
		if (route) {
			res.setHeader("content-type", route[0]);
			return res.end(route[1]);
		}
		if (req.url === "/stall") {
			const closed = new Promise((r) => req.socket.on("close", r));
			stalled.push({ req, res, closed });
			for (const w of waiters.splice(0)) w();
			return;
		}
		res.statusCode = 404;
		res.end("not here");
	});
	return Object.assign(server, { stalled, nextStall: () => new Promise((r) => waiters.push(r)) });
}

/** The repo's fake Brave API (tests/fakes/brave_server.py) in a child Python. */
export async function fakeBrave() {
	const code =
		"import sys, time; sys.path.insert(0, sys.argv[1]); from fakes.brave_server import FakeBrave, KEY; " +
		"f = FakeBrave().__enter__(); print(f.base_url, KEY, flush=True); sys.stdin.read()";
	const proc = spawn(DEV_PYTHON, ["-c", code, join(ROOT, "tests")], { stdio: ["pipe", "pipe", "inherit"] });
	const line = await new Promise((res, rej) => {
		let buf = "";
		proc.stdout.on("data", (d) => {
			buf += d;
			if (buf.includes("\n")) res(buf.trim());
		});
		proc.on("exit", (c) => rej(new Error(`fake brave exited ${c}`)));
	});
	const [baseUrl, key] = line.split(" ");
	return { baseUrl, key, close: () => proc.kill() };
}

/**
 * A pi session runtime with the extension loaded from hosts/pi (its package.json
 * "pi" manifest) and a faux model that plays ``steps`` (tool calls, then text).
 */
export async function piSession({ flags = {}, steps, cwd = TMP, extensionPaths = [PI_DIR] }) {
	const faux = registerFauxProvider({ provider: "faux-e2e" });
	faux.setResponses(steps);
	const agentDir = join(TMP, "agent");
	mkdirSync(agentDir, { recursive: true });
	const authStorage = AuthStorage.inMemory();
	authStorage.setRuntimeApiKey("faux-e2e", "test-key");
	const modelRegistry = ModelRegistry.inMemory(authStorage);
	const settingsManager = SettingsManager.inMemory({ compaction: { enabled: false }, retry: { enabled: false } });
	const flagValues = new Map(Object.entries(flags));
	const createRuntime = async ({ cwd: c, sessionManager, sessionStartEvent }) => {
		const services = await createAgentSessionServices({
			cwd: c,
			agentDir,
			authStorage,
			modelRegistry,
			settingsManager,
			extensionFlagValues: flagValues,
			resourceLoaderOptions: { additionalExtensionPaths: extensionPaths, noSkills: true, noPromptTemplates: true, noThemes: true },
		});
		return {
			...(await createAgentSessionFromServices({ services, sessionManager, sessionStartEvent, model: faux.getModel(), thinkingLevel: "off" })),
			services,
			diagnostics: services.diagnostics,
		};
	};
	const runtime = await createAgentSessionRuntime(createRuntime, { cwd, agentDir, sessionManager: SessionManager.inMemory(cwd) });
	const session = runtime.session;
	const errors = runtime.services?.diagnostics ?? [];
	await session.bindExtensions({});
	const events = [];
	session.subscribe((e) => events.push(e));
	return {
		runtime,
		session,
		events,
		faux,
		diagnostics: errors,
		toolEnds: () => events.filter((e) => e.type === "tool_execution_end"),
		toolUpdates: () => events.filter((e) => e.type === "tool_execution_update"),
		async dispose() {
			await runtime.dispose();
			faux.unregister();
		},
	};
}

export const call = (name, args) => fauxAssistantMessage(fauxToolCall(name, args), { stopReason: "toolUse" });
export const say = (text) => fauxAssistantMessage(fauxText(text));
export const resultText = (end) => (end.result?.content ?? []).map((c) => c.text ?? "").join("\n");
