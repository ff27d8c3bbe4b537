import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { PreparedWorker, preparedEnabled, warn } from "../src/prepared.ts";

const PI_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const ROOT = resolve(PI_DIR, "..", "..");
const PYTHON = process.env.WEBSEARCH_PI_TEST_PYTHON;

const alive = (pid: number) => {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
};

test("WEBSEARCH_PI_PREPARED=0 turns it off; the warning names the stage", () => {
	assert.equal(preparedEnabled({}), true);
	assert.equal(preparedEnabled({ WEBSEARCH_PI_PREPARED: "0" }), false);
	assert.equal(preparedEnabled({ WEBSEARCH_PI_PREPARED: "1" }), true);
	assert.match(warn("had ended (exit 1) before the call came"), /^prepared worker: .*; the call ran in a fresh worker$/);
	const off = new PreparedWorker(false);
	off.prepare(PYTHON ?? "python3", ROOT);
	assert.equal(off.pid, undefined);
	assert.deepEqual(off.take(PYTHON ?? "python3", ROOT), {});
});

test("an idle prepared worker never keeps pi running, and ends when pi does", { skip: PYTHON ? false : "WEBSEARCH_PI_TEST_PYTHON is not set (test.sh sets it)" }, async () => {
	const dir = mkdtempSync(join(tmpdir(), "websearch-pi-prepared-"));
	try {
		// A host process that prepares one, says its pid, and then has nothing left to do.
		const script =
			`import { PreparedWorker } from ${JSON.stringify(join(PI_DIR, "src", "prepared.ts"))};` +
			`const p = new PreparedWorker(true); p.prepare(${JSON.stringify(PYTHON)}, ${JSON.stringify(ROOT)});` +
			"console.log(p.pid);";
		const host = join(dir, "host.ts");
		writeFileSync(host, script);
		const started = Date.now();
		const r = spawnSync(process.execPath, ["--import", "jiti/register", host], { cwd: PI_DIR, timeout: 30_000, encoding: "utf8" });
		assert.equal(r.status, 0, r.stderr);
		assert.ok(Date.now() - started < 20_000, "the host exited on its own");
		const pid = Number(r.stdout.trim());
		assert.ok(pid > 0, r.stdout);
		// Its stdin closed with the host: it exits quietly (after its imports, at the latest).
		for (let i = 0; i < 300 && alive(pid); i++) await new Promise((res) => setTimeout(res, 50));
		assert.equal(alive(pid), false, "the prepared worker outlived its host");
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
