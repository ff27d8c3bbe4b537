// The prepared worker (src/prepared.ts) end to end through the real pi package: which calls it
// serves, that each serves one call, cancellation, a dead or unfit one, and that none is left.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { call, notesServer, piSession, readyVenv, resultText, say, TMP } from "./harness.mjs";

let web;

before(async () => {
	web = await notesServer();
});

after(async () => {
	await web?.close();
	if (!process.env.WEBSEARCH_PI_KEEP_TMP) rmSync(TMP, { recursive: true, force: true });
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Pids of `python -m worker.prepared` processes working in ``cwd`` (each test has its own). */
function preparedIn(cwd) {
	const out = [];
	for (const name of readdirSync("/proc")) {
		if (!/^\d+$/.test(name)) continue;
		try {
			const argv = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0");
			if (argv.includes("worker.prepared") && readlinkSync(`/proc/${name}/cwd`) === cwd) out.push(Number(name));
		} catch {
			// gone meanwhile
		}
	}
	return out;
}

/** Wait (at most 30 s) until a prepared worker other than ``not`` waits in ``cwd``; its pid. */
async function waitPrepared(cwd, not = []) {
	for (let i = 0; i < 600; i++) {
		const pids = preparedIn(cwd).filter((p) => !not.includes(p));
		if (pids.length) return pids[0];
		await sleep(50);
	}
	throw new Error(`no prepared worker appeared in ${cwd}`);
}

async function gone(pid, ms = 10_000) {
	for (let i = 0; i < ms / 50; i++) {
		try {
			process.kill(pid, 0);
		} catch {
			return true;
		}
		await sleep(50);
	}
	return false;
}

function workdir(name) {
	const dir = join(TMP, name);
	mkdirSync(dir, { recursive: true });
	return dir;
}


/** A pi session working in a folder of its own (``name``), with a ready venv, playing ``steps``. */
function session(name, steps) {
	return piSession({ cwd: workdir(name), flags: { "web-search-venv": readyVenv(`venv-${name}`), "web-search-allow-private": true }, steps });
}
const notes = () => call("web_fetch", { urls: [`${web.url}/notes.md`] });

test("after a first call, each call is served by a worker prepared for it alone, with the same answer; none is left after the session", async () => {
	const cwd = join(TMP, "served");
	const seen = [];
	const s = await session("served", [
		notes(),
		async () => {
			seen.push(await waitPrepared(cwd));
			return notes();
		},
		async () => {
			seen.push(await waitPrepared(cwd, seen));
			return notes();
		},
		say("done"),
	]);
	try {
		await s.session.prompt("read the release notes three times");
		const ends = s.toolEnds();
		assert.equal(ends.length, 3);
		for (const e of ends) assert.equal(e.isError, false, resultText(e));
		assert.deepEqual(
			ends.map((e) => e.result.details.via),
			["direct", "prepared", "prepared"],
		);
		// the same answer as a fresh worker's, the first call's
		const texts = ends.map((e) => e.result.details.results[0].content);
		assert.match(texts[0], /quick brown fox ships version 2\.0/);
		assert.equal(texts[1], texts[0]);
		assert.equal(texts[2], texts[0]);
		assert.deepEqual(ends[1].result.details.warnings, []);
		// one process per call: each served one and exited
		assert.notEqual(seen[0], seen[1]);
		assert.ok(await gone(seen[0]), "the first prepared worker exited after its call");
		assert.ok(await gone(seen[1]), "the second prepared worker exited after its call");
		await waitPrepared(cwd, seen); // the successor of the last call
	} finally {
		await s.dispose();
	}
	// session_shutdown kills the idle one: it holds no call
	for (let i = 0; i < 100 && preparedIn(cwd).length; i++) await sleep(50);
	assert.deepEqual(preparedIn(cwd), []);
});

test("abort of a call a prepared worker serves: SIGTERM, exit 130, the tool reports cancellation", async () => {
	const cwd = join(TMP, "abort");
	let pid;
	const s = await session("abort", [
		notes(),
		async () => {
			pid = await waitPrepared(cwd);
			return call("web_fetch", { urls: [`${web.url}/stall`] });
		},
		say("never reached"),
	]);
	try {
		const arrived = web.nextStall();
		const prompt = s.session.prompt("fetch the slow page");
		await arrived; // the prepared worker is inside its HTTP request now
		const { closed } = web.stalled[web.stalled.length - 1];
		const started = Date.now();
		await s.session.abort();
		await prompt;
		await closed;
		assert.ok(await gone(pid), "the prepared worker ended");
		const ends = s.toolEnds();
		assert.equal(ends.length, 2);
		assert.equal(ends[1].isError, true);
		assert.match(resultText(ends[1]), /web_fetch was cancelled; the worker stopped \(exit code 130\)/);
		assert.ok(Date.now() - started < 30_000);
	} finally {
		await s.dispose();
	}
});

test("a prepared worker killed while idle: the call runs in a fresh worker, with a warning naming the stage", async () => {
	const cwd = join(TMP, "killed");
	const s = await session("killed", [
		notes(),
		async () => {
			const pid = await waitPrepared(cwd);
			process.kill(pid, "SIGKILL");
			assert.ok(await gone(pid));
			await sleep(200); // its end reaches the extension
			return notes();
		},
		say("done"),
	]);
	try {
		await s.session.prompt("read it twice");
		const [, second] = s.toolEnds();
		assert.equal(second.isError, false, resultText(second));
		assert.equal(second.result.details.via, "direct");
		assert.match(second.result.details.results[0].content, /version 2\.0/);
		const warnings = second.result.details.warnings ?? [];
		assert.ok(
			warnings.some((w) => /^prepared worker: the process prepared for this call had ended \(killed by SIGKILL\)/.test(w)),
			JSON.stringify(warnings),
		);
	} finally {
		await s.dispose();
	}
});

test("a worker prepared before the environment changed does not serve a call; none with WEBSEARCH_PI_PREPARED=0", async () => {
	const cwd = join(TMP, "env");
	let pid;
	const s = await session("env", [
		notes(),
		async () => {
			pid = await waitPrepared(cwd);
			process.env.WEBSEARCH_PI_TEST_MARK = "changed"; // what a worker started now would inherit
			return notes();
		},
		say("done"),
	]);
	try {
		await s.session.prompt("read it twice");
		const [, second] = s.toolEnds();
		assert.equal(second.isError, false, resultText(second));
		assert.equal(second.result.details.via, "direct");
		assert.deepEqual(second.result.details.warnings, [], "nothing went wrong: no warning");
		assert.ok(await gone(pid), "the unfit worker was stopped");
	} finally {
		delete process.env.WEBSEARCH_PI_TEST_MARK;
		await s.dispose();
	}

	const off = workdir("off");
	process.env.WEBSEARCH_PI_PREPARED = "0";
	try {
		const t = await piSession({
			cwd: off,
			flags: { "web-search-venv": readyVenv("venv-prepared-off"), "web-search-allow-private": true },
			steps: [
				notes(),
				async () => {
					await sleep(1500); // ample time for one to be prepared, were it on
					return notes();
				},
				say("done"),
			],
		});
		try {
			await t.session.prompt("read it twice");
			assert.deepEqual(preparedIn(off), []);
			assert.deepEqual(
				t.toolEnds().map((e) => e.result.details.via),
				["direct", "direct"],
			);
		} finally {
			await t.dispose();
		}
	} finally {
		delete process.env.WEBSEARCH_PI_PREPARED;
	}
});
