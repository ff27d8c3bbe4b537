/**
 * The pi extension's prepared worker (issue 45), the twin of hosts/mcp/prepared.py: one worker
 * process started before its call (`python -I -m worker.prepared`: interpreter up, imports
 * done), waiting on stdin for the call's argv as one JSON line.
 *
 * A call that finds it idle, alive and started the way the call would start a worker (the same
 * interpreter, working directory and environment) writes its argv and from then on it is that
 * call's worker: the same SEARCH_OK/SEARCH_ERROR block, exit codes, temp directory and signals as
 * a worker pi.exec starts (SIGTERM on abort or time limit, exit 130 and a cancelled block). Each
 * prepared process serves one call and exits, so no call runs in a process another call ran in;
 * the next one is prepared a moment after a call ends, not while it runs (its imports would take
 * the call's CPU on a small machine).
 *
 * One that is gone when a call comes, or ends without answering, is no failure of the call: the
 * call runs in a fresh worker and its result carries a warning naming the stage. An idle one
 * holds no call and no temp directory: it is killed when the session ends, and exits on its own
 * when pi does (end of file on its stdin). `WEBSEARCH_PI_PREPARED=0` turns it off.
 */

import { type ChildProcess, spawn } from "node:child_process";
import type { ExecResult } from "./runner.ts";

export const PREPARED_ENV = "WEBSEARCH_PI_PREPARED";
export const ENTRY = ["-I", "-m", "worker.prepared"];
/** Wait this long after a call before preparing the next worker (see the module's comment). */
export const PREPARE_DELAY_MS = 100;
/** After a SIGTERM, a worker that has not exited in this long is killed with its process group. */
const KILL_AFTER_MS = 5000;

export const preparedEnabled = (env: NodeJS.ProcessEnv = process.env) => (env[PREPARED_ENV] ?? "1").trim() !== "0";

/** What a worker started now would inherit: a call whose environment differs takes no prepared one. */
const envKey = () => JSON.stringify(Object.entries(process.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

interface Idle {
	child: ChildProcess;
	python: string;
	cwd: string;
	env: string;
	stdout: Buffer[];
	stderr: Buffer[];
	exited: Promise<number | null>;
}

/** A prepared process taken for one call: run() gives what pi.exec would have. */
export interface Taken {
	pid: number;
	run(argv: string[], signal: AbortSignal, timeoutMs: number | undefined): Promise<ExecResult & { answered: boolean }>;
}

function alive(c: ChildProcess): boolean {
	return c.exitCode === null && c.signalCode === null;
}

function hold(c: ChildProcess, yes: boolean): void {
	// An idle worker must not keep pi's event loop alive; a serving one must.
	for (const h of [c, c.stdin, c.stdout, c.stderr] as Array<{ ref?: () => void; unref?: () => void } | null>) {
		if (yes) h?.ref?.();
		else h?.unref?.();
	}
}

function stop(c: ChildProcess, signal: NodeJS.Signals): void {
	try {
		process.kill(-(c.pid as number), signal); // its own process group: the reading child too
	} catch {
		try {
			c.kill(signal);
		} catch {
			// already gone
		}
	}
}

function howItEnded(c: ChildProcess): string {
	return c.signalCode ? `killed by ${c.signalCode}` : `exit ${c.exitCode}`;
}

export class PreparedWorker {
	private idle: Idle | undefined;
	private timer: NodeJS.Timeout | undefined;

	constructor(readonly enabled: boolean = preparedEnabled()) {}

	/** Prepare one for `python` in `cwd` after PREPARE_DELAY_MS, unless one waits already. */
	prepareSoon(python: string, cwd: string): void {
		if (!this.enabled) return;
		clearTimeout(this.timer);
		this.timer = setTimeout(() => this.prepare(python, cwd), PREPARE_DELAY_MS);
		this.timer.unref();
	}

	prepare(python: string, cwd: string): void {
		if (!this.enabled) return;
		if (this.idle && alive(this.idle.child) && this.idle.python === python && this.idle.cwd === cwd) return;
		this.discard();
		let child: ChildProcess;
		try {
			child = spawn(python, ENTRY, { cwd, detached: true, stdio: ["pipe", "pipe", "pipe"] });
		} catch {
			return; // the interpreter vanished: the next call's own start says so
		}
		const idle: Idle = {
			child,
			python,
			cwd,
			env: envKey(),
			stdout: [],
			stderr: [],
			exited: new Promise((resolve) => {
				child.once("close", (code) => resolve(code));
				child.once("error", () => resolve(null)); // spawn failed (ENOENT): "close" follows or not
			}),
		};
		child.stdout?.on("data", (d: Buffer) => idle.stdout.push(d));
		child.stderr?.on("data", (d: Buffer) => idle.stderr.push(d));
		child.stdin?.on("error", () => {}); // EPIPE from a worker that died: seen as no answer
		hold(child, false);
		this.idle = idle;
	}

	/**
	 * The idle worker for a call that would run `python` in `cwd`, or undefined with a warning
	 * when there was one that cannot serve (it ended while idle), or undefined alone when there
	 * is none or it was started differently (discarded, no warning: nothing went wrong).
	 */
	take(python: string, cwd: string): { taken?: Taken; warning?: string } {
		clearTimeout(this.timer);
		const idle = this.idle;
		this.idle = undefined;
		if (!idle) return {};
		if (idle.python !== python || idle.cwd !== cwd || idle.env !== envKey()) {
			stop(idle.child, "SIGKILL");
			return {};
		}
		if (!alive(idle.child) || idle.child.pid === undefined) {
			return { warning: warn(`had ended (${howItEnded(idle.child)}) before the call came`) };
		}
		return { taken: serve(idle) };
	}

	/** The idle worker's pid (tests). */
	get pid(): number | undefined {
		return this.idle && alive(this.idle.child) ? this.idle.child.pid : undefined;
	}

	/** The idle worker is killed (it holds no call) and none is pending; a later call prepares again. */
	close(): void {
		clearTimeout(this.timer);
		this.discard();
	}

	private discard(): void {
		const idle = this.idle;
		this.idle = undefined;
		if (idle && alive(idle.child)) stop(idle.child, "SIGKILL");
	}
}

export function warn(what: string): string {
	return `prepared worker: the process prepared for this call ${what}; the call ran in a fresh worker`;
}

function serve(idle: Idle): Taken {
	const { child } = idle;
	return {
		pid: child.pid as number,
		run(argv, signal, timeoutMs) {
			hold(child, true);
			let killed = false;
			let sent = false;
			let force: NodeJS.Timeout | undefined;
			const terminate = () => {
				if (sent) return;
				sent = true;
				stop(child, "SIGTERM");
				force = setTimeout(() => alive(child) && stop(child, "SIGKILL"), KILL_AFTER_MS);
			};
			const onAbort = () => terminate();
			const timer =
				timeoutMs && timeoutMs > 0
					? setTimeout(() => {
							killed = true;
							terminate();
						}, timeoutMs)
					: undefined;
			if (signal.aborted) terminate();
			else signal.addEventListener("abort", onAbort, { once: true });
			try {
				child.stdin?.end(`${JSON.stringify(argv)}\n`);
			} catch {
				// it died between take() and here: it answers nothing, and the runner says so
			}
			return idle.exited.then((code) => {
				clearTimeout(timer);
				clearTimeout(force);
				signal.removeEventListener("abort", onAbort);
				const stdout = Buffer.concat(idle.stdout).toString("utf8");
				const stderr = Buffer.concat(idle.stderr).toString("utf8");
				// pi.exec reports a death by signal as code 0: the same here, so interpret() reads both alike.
				return { stdout, stderr, code: code ?? 0, killed, answered: stdout.includes("SEARCH_") };
			});
		},
	};
}
