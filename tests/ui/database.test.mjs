// The UI's word on the database (ui/src/api/database.ts): what the health
// check's answers mean, and that only a DATABASE_UNAVAILABLE error marks
// the database unavailable, listeners hearing each change once. The module
// is compiled on the fly with the UI's TypeScript.
//
// Run: node --test tests/ui/database.test.mjs

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const UI = fileURLToPath(new URL("../../ui/", import.meta.url));
const ts = createRequire(join(UI, "package.json"))("typescript");

/** A fresh copy of the module (its state is its own). */
async function load() {
  const source = readFileSync(join(UI, "src/api/database.ts"), "utf8");
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  assert.ok(!/^\s*import\s[^t]/m.test(outputText), "the module imports nothing at run time");
  return import(`data:text/javascript;base64,${Buffer.from(outputText).toString("base64")}#${Math.random()}`);
}

test("the health check's answers", async () => {
  const { healthSays } = await load();
  assert.equal(healthSays(200, { status: "ok", database: "ok" }), "up");
  assert.equal(healthSays(503, { status: "degraded", database: "unavailable" }), "unavailable");
  assert.equal(healthSays(200, { status: "degraded", database: "read_only" }), "read_only");
  // An older server without the field: it answered, so the database did.
  assert.equal(healthSays(200, { status: "ok" }), "up");
  // A proxy's error page says nothing of the database.
  assert.equal(healthSays(503, null), null);
  assert.equal(healthSays(502, { message: "bad gateway" }), null);
});

test("only DATABASE_UNAVAILABLE marks the database unavailable, each change heard once", async () => {
  const { database, noted } = await load();
  const heard = [];
  const stop = database.subscribe((s) => heard.push(s));
  assert.equal(database.current(), "up");
  const conflict = { code: "CONFLICT" };
  assert.equal(noted(conflict), conflict, "the error is handed back to throw");
  assert.equal(database.current(), "up");
  noted({ code: "DATABASE_UNAVAILABLE" });
  noted({ code: "DATABASE_UNAVAILABLE" });
  assert.equal(database.current(), "unavailable");
  database.set("up");
  database.set("up");
  assert.deepEqual(heard, ["unavailable", "up"]);
  stop();
  noted({ code: "DATABASE_UNAVAILABLE" });
  assert.deepEqual(heard, ["unavailable", "up"], "an unsubscribed listener hears nothing");
});

test("a read-only database stays read-only when a write is refused", async () => {
  const { database, noted } = await load();
  const heard = [];
  database.subscribe((s) => heard.push(s));
  // The first refusal, before anything is known: unavailable until the health check tells.
  noted({ code: "DATABASE_UNAVAILABLE" });
  database.set("read_only");
  noted({ code: "DATABASE_UNAVAILABLE" });
  assert.equal(database.current(), "read_only");
  assert.deepEqual(heard, ["unavailable", "read_only"]);
});
