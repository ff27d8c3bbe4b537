/**
 * bench/startup/calls.py's pi host: the pi extension's WorkerRunner, run by pi's own exec
 * (the function the extension's pi.exec is), driven line by line on stdin.
 *
 *     node --import jiti/register bench/startup/pi_driver.ts PYTHON   (cwd: hosts/pi)
 *
 * Each stdin line is a URL; each answer one JSON line on stdout: {ok, via}. The prepared
 * worker is on unless WEBSEARCH_PI_PREPARED=0, as in the extension.
 */
import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import { PreparedWorker } from "../../hosts/pi/src/prepared.ts";
import { type Exec, WorkerRunner } from "../../hosts/pi/src/runner.ts";
import { fetchArgs } from "../../hosts/pi/src/args.ts";

const PI_DIR = resolve(process.cwd());
const { execCommand } = await import(join(PI_DIR, "node_modules/@mariozechner/pi-coding-agent/dist/core/exec.js"));
const exec: Exec = (command, args, options) => execCommand(command, args, options?.cwd ?? process.cwd(), options);
const python = process.argv[2];
const runner = new WorkerRunner(exec, new PreparedWorker());
const settings = { root: resolve(PI_DIR, "..", ".."), venv: "", bootstrapPython: "python3", python, allowPrivate: true };

for await (const line of createInterface({ input: process.stdin })) {
	const url = line.trim();
	if (!url) continue;
	const argv = fetchArgs({ urls: [url] } as never, { allowPrivate: true }); // as the extension passes it (each URL is new: no cache hit)
	let answer: Record<string, unknown>;
	try {
		const out = await runner.run(argv, { tool: "web_fetch", settings, timeoutMs: 120_000, cwd: settings.root });
		const first = (out.payload.results as Array<{ ok: boolean }> | undefined)?.[0];
		answer = { ok: out.payload.ok && !!first?.ok, via: out.via };
	} catch (err) {
		answer = { ok: false, error: String(err) };
	}
	process.stdout.write(`${JSON.stringify(answer)}\n`);
}
runner.prepared?.close();
