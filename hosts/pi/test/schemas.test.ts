import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { test } from "node:test";
import { DEFAULT_MAX_TOTAL_CHARS } from "../src/args.ts";
import { FetchSchema, SearchSchema } from "../src/schemas.ts";

const ROOT = resolve(import.meta.dirname ?? __dirname, "..", "..", "..");
const PY = process.env.WEBSEARCH_PI_TEST_PYTHON || "python3";

type Json = Record<string, any>;

/** The tools as worker/tool_schemas.py declares them (from worker/cli.py): what the MCP host serves. */
function declared(): Json {
	const code = "import json,sys; sys.path.insert(0, sys.argv[1]); from worker.tool_schemas import all_schemas; print(json.dumps(all_schemas()))";
	return JSON.parse(execFileSync(PY, ["-I", "-c", code, ROOT]).toString());
}

/** What decides which values are valid; descriptions may be worded for pi. */
function constraints(schema: Json): Json {
	const keys = ["type", "enum", "minimum", "maximum", "minItems", "maxItems", "maxLength"];
	const out: Json = {};
	for (const k of keys) if (schema[k] !== undefined) out[k] = schema[k];
	if (schema.items) out.items = { type: schema.items.type };
	return out;
}

for (const [tool, schema] of [
	["web_search", SearchSchema],
	["web_fetch", FetchSchema],
] as const) {
	test(`${tool}: pi's parameters are the worker's declared ones, with the same types and ranges`, () => {
		const want = declared()[tool].inputSchema;
		const have = JSON.parse(JSON.stringify(schema));
		assert.deepEqual(Object.keys(have.properties).sort(), Object.keys(want.properties).sort());
		assert.deepEqual([...(have.required ?? [])].sort(), [...want.required].sort());
		for (const name of Object.keys(want.properties)) {
			assert.deepEqual(constraints(have.properties[name]), constraints(want.properties[name]), `${tool}.${name}`);
		}
	});
}

test("web_fetch: pi's default call budget is the one the worker declares for hosts", () => {
	assert.equal(DEFAULT_MAX_TOTAL_CHARS, declared().web_fetch.inputSchema.properties.max_total_chars.default);
});
