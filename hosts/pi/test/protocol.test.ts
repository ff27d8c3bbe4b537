import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { test } from "node:test";
import { DONE, ERROR, OK, parse, ProtocolError } from "../src/protocol.ts";

const ROOT = resolve(import.meta.dirname ?? __dirname, "..", "..", "..");

/** The worker's own emitter renders the blocks: a cross-language round trip, nothing hard-coded. */
function pythonBlocks(): Array<[string, "ok" | "error", string]> {
	const out = execFileSync(process.env.WEBSEARCH_PI_TEST_PYTHON || "python3", [resolve(ROOT, "hosts/pi/test/emit_blocks.py"), ROOT, String(Date.now() % 100000)], {
		maxBuffer: 64 * 1024 * 1024,
	});
	return JSON.parse(out.toString("utf8"));
}

/** What a naive host does: text between the first opening marker and the first SEARCH_DONE. */
function naive(out: string) {
	const i = out.indexOf(OK) >= 0 ? out.indexOf(OK) : out.indexOf(ERROR);
	const marker = out.startsWith(OK, i) ? OK : ERROR;
	return JSON.parse(out.slice(i + marker.length, out.indexOf(DONE)));
}

test("hostile and random strings round-trip from the Python emitter", () => {
	const cases = pythonBlocks();
	assert.ok(cases.length > 600);
	for (const [expectedJson, kind, block] of cases) {
		const s = JSON.parse(expectedJson) as string;
		assert.ok(/^[\x00-\x7f]*$/.test(block), "block is pure ASCII");
		const lines = block.split("\n");
		assert.equal(lines.length, 4);
		assert.ok(!lines[1].includes("SEARCH_"), "no marker inside the payload");
		const p = parse(block);
		const n = naive(block);
		if (kind === "ok") {
			assert.equal(p.ok, true);
			assert.equal(p.results?.[0].title, s);
			assert.equal(p.results?.[0][s], s);
			assert.equal(p.text, s);
			assert.equal(n.results[0].snippet, s);
		} else {
			assert.equal(p.ok, false);
			assert.equal(p.error?.message, s);
			assert.equal(n.error.message, s);
			assert.equal(p.error?.hint ?? "", s);
		}
		// A host that decoded stdout with CRLF line ends still parses it.
		assert.deepEqual(parse(block.replace(/\n/g, "\r\n")), p);
	}
});

test("noise outside the block is ignored", () => {
	const block = 'SEARCH_OK\n{"ok":true,"v":1,"a":1}\nSEARCH_DONE\n';
	assert.equal(parse(`banner\nwarning: x\n${block}trailing noise\n`).a, 1);
	assert.equal(parse(`SEARCH_OK is mentioned here\n${block}`).a, 1);
});

const STRICT: Array<[string, RegExp]> = [
	["", /no SEARCH_OK/],
	["SEARCH_OK\n", /no payload/],
	['SEARCH_OK\n{"ok":true,"v":1}\n', /not followed/],
	['SEARCH_OK\n{"ok":true,"v":1', /malformed/],
	['SEARCH_OK\n{"ok":tr\n', /malformed/],
	['SEARCH_OK\n{"ok":false,"v":1}\nSEARCH_DONE\n', /disagrees/],
	['SEARCH_ERROR\n{"ok":true,"v":1}\nSEARCH_DONE\n', /disagrees/],
	["SEARCH_OK\n[1]\nSEARCH_DONE\n", /not a protocol object/],
	["SEARCH_OK\nnull\nSEARCH_DONE\n", /not a protocol object/],
	['SEARCH_OK\n{"v":1}\nSEARCH_DONE\n', /not a protocol object/],
];

for (const [out, why] of STRICT) {
	test(`strict inside the block: ${JSON.stringify(out).slice(0, 50)}`, () => {
		assert.throws(() => parse(out), (err: unknown) => err instanceof ProtocolError && why.test((err as Error).message));
	});
}
