/**
 * Where the worker lives and how to run it, from pi flags and the environment.
 * Read at call time, so a changed environment or flag applies to the next call.
 */

import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export interface RunnerSettings {
	/** websearch-worker checkout holding bootstrap/run.py */
	root: string;
	/** the worker's venv (bootstrap/run.py --venv) */
	venv: string;
	/** interpreter that runs bootstrap/run.py */
	bootstrapPython: string;
	/** a ready interpreter to use directly, skipping the bootstrap (development, tests) */
	python?: string;
	/** pass --allow-private: loopback/private addresses (local docs servers, tests) */
	allowPrivate: boolean;
	/** pass --config PATH (otherwise the worker reads $WEBSEARCH_CONFIG, else $XDG_CONFIG_HOME/websearch-worker/config.json, else ~/.pi/agent/web-search.json) */
	config?: string;
}

export const ENV = {
	root: "WEBSEARCH_WORKER_ROOT",
	venv: "WEBSEARCH_PI_VENV",
	workerVenv: "WEBSEARCH_WORKER_VENV",
	python: "WEBSEARCH_PI_PYTHON",
	bootstrapPython: "WEBSEARCH_PI_BOOTSTRAP_PYTHON",
	allowPrivate: "WEBSEARCH_PI_ALLOW_PRIVATE",
	config: "WEBSEARCH_PI_CONFIG",
} as const;

export const FLAGS = {
	venv: "web-search-venv",
	python: "web-search-python",
	allowPrivate: "web-search-allow-private",
	config: "web-search-config",
} as const;

/** The project-local default: .pi/web-search-venv under the session's cwd. */
export const DEFAULT_VENV = join(".pi", "web-search-venv");

type FlagReader = (name: string) => boolean | string | undefined;

const truthy = (v: string | undefined) => !!v && !/^(0|false|no|off)$/i.test(v.trim());

function here(): string {
	return dirname(fileURLToPath(import.meta.url));
}

/** The checkout: $WEBSEARCH_WORKER_ROOT, else two levels above this package (hosts/pi/src -> repo). */
export function findRoot(env: NodeJS.ProcessEnv = process.env): string {
	const candidates: string[] = [];
	if (env[ENV.root]) candidates.push(resolve(env[ENV.root] as string));
	const pkg = resolve(here(), "..");
	try {
		candidates.push(resolve(realpathSync(pkg), "..", "..")); // a symlinked extension dir
	} catch {
		// fall through to the unresolved path
	}
	candidates.push(resolve(pkg, "..", ".."));
	for (const c of candidates) {
		if (existsSync(join(c, "bootstrap", "run.py"))) return c;
	}
	throw new Error(
		`cannot find the websearch-worker checkout (looked in ${candidates.join(", ")}); ` +
			`set ${ENV.root} to the directory that holds bootstrap/run.py`,
	);
}

export function resolveSettings(cwd: string, flag: FlagReader = () => undefined, env: NodeJS.ProcessEnv = process.env): RunnerSettings {
	const flagStr = (name: string) => {
		const v = flag(name);
		return typeof v === "string" && v.trim() !== "" ? v : undefined;
	};
	const abs = (p: string) => (isAbsolute(p) ? p : resolve(cwd, p));
	const venv = flagStr(FLAGS.venv) ?? env[ENV.venv] ?? env[ENV.workerVenv] ?? DEFAULT_VENV;
	const python = flagStr(FLAGS.python) ?? env[ENV.python];
	const config = flagStr(FLAGS.config) ?? env[ENV.config];
	return {
		root: findRoot(env),
		venv: abs(venv),
		bootstrapPython: env[ENV.bootstrapPython] || "python3",
		python: python ? (python.includes("/") ? abs(python) : python) : undefined,
		allowPrivate: flag(FLAGS.allowPrivate) === true || truthy(env[ENV.allowPrivate]),
		config: config ? abs(config) : undefined,
	};
}
