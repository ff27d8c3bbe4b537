/**
 * Parser for the worker's stdout protocol (docs/PROTOCOL.md), mirroring
 * worker/protocol.py: tolerant of noise outside the block, strict inside it.
 *
 *     SEARCH_OK | SEARCH_ERROR
 *     <one line of ASCII JSON>
 *     SEARCH_DONE
 */

export const OK = "SEARCH_OK";
export const ERROR = "SEARCH_ERROR";
export const DONE = "SEARCH_DONE";

export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;
export const EXIT_CANCELLED = 130;

export interface WorkerErrorObject {
	code: string;
	message: string;
	hint?: string;
	retryable?: boolean;
	[key: string]: unknown;
}

export interface WorkerPayload {
	ok: boolean;
	v: number;
	tool?: string;
	provider?: string;
	results?: Array<Record<string, unknown>>;
	text?: string;
	warnings?: string[];
	meta?: Record<string, unknown>;
	error?: WorkerErrorObject;
	[key: string]: unknown;
}

export class ProtocolError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "ProtocolError";
	}
}

const stripCR = (line: string) => (line.endsWith("\r") ? line.slice(0, -1) : line);

/** Parse worker stdout into its payload; throws ProtocolError naming what is wrong. */
export function parse(output: string): WorkerPayload {
	const lines = output.split("\n");
	for (let i = 0; i < lines.length; i++) {
		const line = stripCR(lines[i]);
		if (line !== OK && line !== ERROR) continue;
		if (i + 1 >= lines.length || lines[i + 1].trim() === "") {
			throw new ProtocolError(`truncated block: ${line} with no payload line`);
		}
		let payload: unknown;
		try {
			payload = JSON.parse(stripCR(lines[i + 1]));
		} catch (err) {
			throw new ProtocolError(`malformed payload after ${line}: ${(err as Error).message}`);
		}
		if (i + 2 >= lines.length || stripCR(lines[i + 2]) !== DONE) {
			throw new ProtocolError(`truncated block: ${line} payload not followed by ${DONE}`);
		}
		if (payload === null || typeof payload !== "object" || Array.isArray(payload) || !("ok" in payload)) {
			throw new ProtocolError("payload is not a protocol object");
		}
		const p = payload as WorkerPayload;
		if (p.ok !== (line === OK)) {
			throw new ProtocolError(`payload 'ok' disagrees with the ${line} marker`);
		}
		return p;
	}
	throw new ProtocolError("no SEARCH_OK or SEARCH_ERROR block in the output");
}
