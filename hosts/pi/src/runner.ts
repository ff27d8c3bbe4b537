/**
 * Runs one worker call through an exec function (pi.exec in the extension):
 * bootstrap on first use, then the venv's interpreter directly, falling back
 * to the bootstrap when the direct call produces no block.
 *
 * pi.exec facts this relies on: it sends SIGTERM on abort or timeout and
 * never follows with SIGKILL; a process killed by a signal comes back as
 * code 0; it resolves (never rejects) once the process is gone, except that
 * spawning itself can throw (E2BIG).  So "cancelled" is decided by our own
 * abort signal, never by the exit code.
 */

import { existsSync } from "node:fs";
import { join } from "node:path";
import { type PreparedWorker, warn } from "./prepared.ts";
import { EXIT_CANCELLED, parse, ProtocolError, type WorkerErrorObject, type WorkerPayload } from "./protocol.ts";
import type { RunnerSettings } from "./settings.ts";

export interface ExecResult {
	stdout: string;
	stderr: string;
	code: number;
	killed: boolean;
}

export interface ExecOptions {
	signal?: AbortSignal;
	timeout?: number;
	cwd?: string;
}

export type Exec = (command: string, args: string[], options?: ExecOptions) => Promise<ExecResult>;

/** The worker answered with a SEARCH_ERROR block. */
export class WorkerCallError extends Error {
	readonly error: WorkerErrorObject;
	readonly exitCode: number;
	constructor(tool: string, error: WorkerErrorObject, exitCode: number) {
		const hint = error.hint ? `\nHint: ${error.hint}` : "";
		super(`${tool} failed (${error.code}): ${error.message}${hint}`);
		this.name = "WorkerCallError";
		this.error = error;
		this.exitCode = exitCode;
	}
}

/** Our own abort (the user pressed Esc, or the session shut down). */
export class CancelledError extends Error {
	readonly exitCode: number;
	constructor(tool: string, exitCode: number, phase: string) {
		super(`${tool} was cancelled${phase ? ` ${phase}` : ""}; the worker stopped (exit code ${exitCode})`);
		this.name = "CancelledError";
		this.exitCode = exitCode;
	}
}

/** No usable block: the process died, the interpreter is missing, or it timed out. */
export class NoResultError extends Error {
	readonly exitCode: number;
	constructor(message: string, exitCode: number) {
		super(message);
		this.name = "NoResultError";
		this.exitCode = exitCode;
	}
}

export interface RunOptions {
	tool: string;
	settings: RunnerSettings;
	signal?: AbortSignal;
	/** bound for one worker call, ms (the worker's own --timeout is the first line of defence) */
	timeoutMs?: number;
	/** bound for the first-run install, ms */
	installTimeoutMs?: number;
	onProgress?: (message: string) => void;
	cwd?: string;
}

export interface RunOutcome {
	payload: WorkerPayload;
	/** how the worker was reached: "direct" (venv interpreter), "prepared" (its prepared worker), "bootstrap", "python" (override) */
	via: "direct" | "prepared" | "bootstrap" | "python";
	exitCode: number;
}

const STAMP = "websearch-worker-ready.json";

function tail(text: string, lines = 8): string {
	return text.trim().split("\n").slice(-lines).join("\n");
}

/**
 * Classify one exec result.  Pure: exported for tests.
 * Order matters: our abort wins over everything (pi reports a signal death as
 * code 0 and the worker answers SIGTERM with exit 130 and a cancelled block).
 */
export function interpret(tool: string, r: ExecResult, aborted: boolean, phase = ""): WorkerPayload {
	if (aborted) throw new CancelledError(tool, r.code, phase);
	let payload: WorkerPayload;
	try {
		payload = parse(r.stdout);
	} catch (err) {
		if (!(err instanceof ProtocolError)) throw err;
		const why = r.killed ? "was stopped after its time limit" : `exited with code ${r.code}`;
		const detail = tail(r.stderr);
		throw new NoResultError(`${tool}: the worker ${why} without a result (${err.message})${detail ? `\n${detail}` : ""}`, r.code);
	}
	if (!payload.ok) {
		const error = payload.error ?? { code: "internal", message: "error block without an error object" };
		if (r.killed) {
			// pi.exec's own timeout sent the SIGTERM, not our abort.
			throw new NoResultError(`${tool}: the worker was stopped after its time limit (exit code ${r.code})`, r.code);
		}
		if (error.code === "cancelled" || r.code === EXIT_CANCELLED) {
			// Someone else stopped it (a signal not from us): still a cancellation, said plainly.
			throw new CancelledError(tool, r.code, phase);
		}
		throw new WorkerCallError(tool, error, r.code);
	}
	return payload;
}

/**
 * No ready stamp at all: the bootstrap will install.  Only decides whether to
 * say "installing" at once; a stale stamp (requirements changed) is noticed by
 * the bootstrap itself, and by the slow-preparation notice below.
 */
export function needsInstall(settings: RunnerSettings): boolean {
	return !existsSync(join(settings.venv, STAMP));
}

/** Say "preparing" when --python-path takes this long (an update or a lock wait). */
const SLOW_PREPARE_MS = 1500;

/** The prepared worker's warnings join the worker's own (a string list in the payload). */
function withWarnings(payload: WorkerPayload, warnings: string[]): WorkerPayload {
	if (!warnings.length) return payload;
	return { ...payload, warnings: [...(Array.isArray(payload.warnings) ? payload.warnings : []), ...warnings] };
}

export class WorkerRunner {
	/** venv -> its ready interpreter (learned from bootstrap/run.py --python-path) */
	private readonly ready = new Map<string, string>();
	private readonly inflight = new Map<AbortController, Promise<unknown>>();

	constructor(
		private readonly exec: Exec,
		/** a worker kept ready between calls (src/prepared.ts); none: every call starts one */
		readonly prepared?: PreparedWorker,
	) {}

	/**
	 * Abort every call in flight (session shutdown) and wait until their
	 * processes are gone, at most ``waitMs``.  Returns how many were aborted.
	 */
	async abortAll(waitMs = 10_000): Promise<number> {
		const pending = [...this.inflight.values()];
		for (const c of this.inflight.keys()) c.abort();
		if (pending.length) {
			let timer: NodeJS.Timeout | undefined;
			const limit = new Promise((r) => {
				timer = setTimeout(r, waitMs);
			});
			await Promise.race([Promise.allSettled(pending), limit]);
			clearTimeout(timer);
		}
		return pending.length;
	}

	get inflightCount(): number {
		return this.inflight.size;
	}

	/** Forget learned interpreters (e.g. after a reinstall). */
	reset(): void {
		this.ready.clear();
	}

	async run(workerArgs: string[], opts: RunOptions): Promise<RunOutcome> {
		const controller = new AbortController();
		const onAbort = () => controller.abort();
		if (opts.signal?.aborted) controller.abort();
		opts.signal?.addEventListener("abort", onAbort, { once: true });
		const work = this.runInner(workerArgs, opts, controller.signal);
		this.inflight.set(controller, work);
		try {
			return await work;
		} finally {
			opts.signal?.removeEventListener("abort", onAbort);
			this.inflight.delete(controller);
		}
	}

	private async call(command: string, args: string[], signal: AbortSignal, timeout: number | undefined, cwd?: string) {
		try {
			return await this.exec(command, args, { signal, timeout, cwd });
		} catch (err) {
			const e = err as NodeJS.ErrnoException;
			// spawn can throw before any process exists (E2BIG, EACCES): one clear line.
			throw new NoResultError(`could not start ${command}: ${e.code ?? ""} ${e.message}`.trim(), -1);
		}
	}

	private async runInner(workerArgs: string[], opts: RunOptions, signal: AbortSignal): Promise<RunOutcome> {
		const { tool, settings } = opts;
		if (signal.aborted) throw new CancelledError(tool, 0, "before it started");

		if (settings.python) {
			const w = await this.worker(settings.python, workerArgs, opts, signal);
			return { payload: withWarnings(interpret(tool, w.r, signal.aborted), w.warnings), via: w.prepared ? "prepared" : "python", exitCode: w.r.code };
		}

		const bootstrap = join(settings.root, "bootstrap", "run.py");
		const python = await this.readyPython(opts, signal, bootstrap);
		const direct = await this.worker(python, workerArgs, opts, signal);
		try {
			const payload = withWarnings(interpret(tool, direct.r, signal.aborted), direct.warnings);
			return { payload, via: direct.prepared ? "prepared" : "direct", exitCode: direct.r.code };
		} catch (err) {
			if (!(err instanceof NoResultError) || direct.r.killed || signal.aborted) throw err;
			// The interpreter is gone or broken (venv deleted, Python upgraded):
			// forget it and let the bootstrap check, repair and run.
			this.ready.delete(settings.venv);
		}
		opts.onProgress?.("web search worker: checking its environment");
		const r = await this.call(settings.bootstrapPython, [bootstrap, "--venv", settings.venv, ...workerArgs], signal, opts.installTimeoutMs, opts.cwd);
		return { payload: interpret(tool, r, signal.aborted), via: "bootstrap", exitCode: r.code };
	}

	/**
	 * One call in a worker run by ``python``: the prepared one when it is there and fit, else a
	 * fresh one through exec (also when the prepared one ended without answering: the call is a
	 * read, so running it again is safe). A worker that answered gets a successor prepared.
	 */
	private async worker(python: string, workerArgs: string[], opts: RunOptions, signal: AbortSignal) {
		const cwd = opts.cwd ?? process.cwd();
		const { taken, warning } = this.prepared?.take(python, cwd) ?? {};
		const warnings = warning ? [warning] : [];
		let r: ExecResult | undefined;
		let prepared = false;
		if (taken) {
			const p = await taken.run(workerArgs, signal, opts.timeoutMs);
			if (p.answered || p.killed || signal.aborted) {
				r = p;
				prepared = true;
			} else {
				const detail = tail(p.stderr, 2).replace(/\s+/g, " ");
				warnings.push(warn(`ended without answering (exit ${p.code})${detail ? `: ${detail}` : ""}`));
			}
		}
		r ??= await this.call(python, ["-I", "-m", "worker", ...workerArgs], signal, opts.timeoutMs, opts.cwd);
		if (r.stdout.includes("SEARCH_") && !signal.aborted) this.prepared?.prepareSoon(python, cwd);
		return { r, prepared, warnings };
	}

	private async readyPython(opts: RunOptions, signal: AbortSignal, bootstrap: string): Promise<string> {
		const { settings, tool } = opts;
		const known = this.ready.get(settings.venv);
		if (known) return known;
		let slow: NodeJS.Timeout | undefined;
		if (needsInstall(settings)) {
			opts.onProgress?.(`Installing the web search worker into ${settings.venv} (first use; this can take a minute)...`);
		} else {
			slow = setTimeout(() => opts.onProgress?.(`Preparing the web search worker in ${settings.venv} (updating its packages)...`), SLOW_PREPARE_MS);
		}
		let r: ExecResult;
		try {
			r = await this.call(settings.bootstrapPython, [bootstrap, "--venv", settings.venv, "--python-path"], signal, opts.installTimeoutMs, opts.cwd);
		} finally {
			clearTimeout(slow);
		}
		if (signal.aborted) throw new CancelledError(tool, r.code, "while installing");
		const lines = r.stdout.trim().split("\n");
		const last = lines[lines.length - 1]?.trim() ?? "";
		if (r.code === 0 && !r.killed && last.startsWith("/")) {
			this.ready.set(settings.venv, last);
			return last;
		}
		// bootstrap/run.py prints a SEARCH_ERROR block (bootstrap_failed) on failure.
		interpret(tool, r, false, "while installing");
		throw new NoResultError(
			`${tool}: the worker's bootstrap ${r.killed ? "timed out" : `exited with code ${r.code}`} without an interpreter path` +
				(tail(r.stderr) ? `\n${tail(r.stderr)}` : ""),
			r.code,
		);
	}
}
