// The desktop app as a client of a team server, in its real window: driven
// through tauri-driver and WebKitWebDriver (run by tests/desktop/run.sh
// under Xvfb, with `agenteval serve` on a folder of its own). The app
// starts on its own database; a wrong key is refused in words and changes
// nothing; a viewer key connects, the window reloads onto the server's
// campaigns with the server, the key and Read only in the header, and no
// New campaign; "Use this computer's database" goes back. A screenshot of
// the connected window goes to docs/screenshots/desktop-team-server.png
// (ImageMagick's import: WebKitWebDriver's own screenshot hangs on Xvfb).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

// run.sh installs selenium-webdriver beside tauri-driver, apart from the UI's packages.
const require = createRequire(join(process.env.AGENTEVAL_DRIVER_MODULES ?? ".", "package.json"));
const { Builder, By, Capabilities, until } = require("selenium-webdriver");

const APP = process.env.AGENTEVAL_APP;
const DATA = process.env.AGENTEVAL_DATA_DIR;
const SERVER = process.env.AGENTEVAL_SERVER_URL;
const ADMIN = process.env.AGENTEVAL_SERVER_KEY;
const DRIVER = process.env.AGENTEVAL_DRIVER_URL ?? "http://127.0.0.1:4444/";
const SHOT = fileURLToPath(new URL("../../docs/screenshots/desktop-team-server.png", import.meta.url));
const TEAM_CAMPAIGN = "Shared weekly check";

/** A call to the team server with its admin key. */
async function admin(path, body) {
  const res = await fetch(SERVER + path, {
    method: body ? "POST" : "GET",
    headers: { "X-API-Key": ADMIN, "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  assert.ok(res.ok, `${path}: ${JSON.stringify(json)}`);
  return json;
}

test("the desktop app connects to a team server and back, in its real window", { timeout: 300_000 }, async (t) => {
  assert.ok(APP && DATA && SERVER && ADMIN, "run.sh passes the app, its data folder, the server and its key");
  const [target] = await admin("/api/targets");
  const [scenario] = await admin("/api/scenarios");
  await admin("/api/campaigns", {
    name: TEAM_CAMPAIGN,
    target_id: target.id,
    duration_hours: 168,
    scenario_ids: [scenario.id],
    seed_set: { personas: [{ id: "p1", name: "Lin" }], goals: [{ id: "g1", title: "Ask for the opening hours" }] },
  });
  const viewer = (await admin("/api/keys", { name: process.env.AGENTEVAL_VIEWER_NAME ?? "manager", role: "viewer" })).key;

  const capabilities = new Capabilities();
  capabilities.set("tauri:options", { application: APP });
  capabilities.setBrowserName("wry");
  const driver = await new Builder().withCapabilities(capabilities).usingServer(DRIVER).build();
  const byId = (id) => By.css(`[data-testid="${id}"]`);
  const find = (id) => driver.wait(until.elementLocated(byId(id)), 30_000, `${id} appears`);
  const text = async (id) => (await (await find(id)).getText()).trim();
  /** The text now, or "" while the page reloads (elements go stale). */
  const textNow = (id) => text(id).catch(() => "");
  const absent = async (id) => (await driver.findElements(byId(id))).length === 0;
  const type = async (id, value) => {
    const input = await find(id);
    await input.clear();
    await input.sendKeys(value);
  };
  const tableText = async () => (await find("campaign-table")).getText();
  try {
    await t.test("the app starts on its own database", async () => {
      assert.equal(await text("who-where"), "This computer");
      assert.ok(!(await tableText()).includes(TEAM_CAMPAIGN));
      await find("new-campaign");
    });

    await t.test("a key the server does not know is refused in words and nothing is saved", async () => {
      await (await find("nav-settings")).click();
      await type("team-server-url", SERVER);
      await type("team-server-key", "aek_not-a-key");
      await (await find("team-server-connect")).click();
      const alert = await text("error-alert");
      assert.match(alert, /does not know this key/);
      assert.ok(!existsSync(join(DATA, "server.json")), "nothing saved");
      assert.equal(await text("who-where"), "This computer");
    });

    await t.test("a viewer key connects: the server's campaigns, the key and its role in the header", async () => {
      await type("team-server-key", viewer);
      await (await find("team-server-connect")).click();
      await driver.wait(async () => (await textNow("who-where")).startsWith("Team server"), 30_000, "the window reloads on the server");
      assert.equal(await text("who-where"), `Team server ${new URL(SERVER).host}`);
      assert.equal(await text("who-name"), `${process.env.AGENTEVAL_VIEWER_NAME ?? "manager"} · viewer`);
      assert.equal(await text("who-read-only"), "Read only");
      const saved = readFileSync(join(DATA, "server.json"), "utf8");
      assert.ok(!saved.includes(viewer), "the key is not in server.json");
      await (await find("nav-campaigns")).click();
      await driver.wait(async () => (await tableText().catch(() => "")).includes(TEAM_CAMPAIGN), 30_000, "the server's campaign is listed");
      assert.ok(await absent("new-campaign"), "a viewer is offered no new campaign");
      // WebKitWebDriver's own screenshot waits forever under Xvfb: the screen's.
      execFileSync("import", ["-window", "root", SHOT]);
    });

    await t.test("going back to this computer's database", async () => {
      await (await find("nav-settings")).click();
      await (await find("team-server-disconnect")).click();
      await driver.wait(async () => (await textNow("who-where")) === "This computer", 30_000, "the window reloads on the local database");
      assert.ok(!existsSync(join(DATA, "server.json")), "the connection is removed");
      await (await find("nav-campaigns")).click();
      await find("new-campaign");
      assert.ok(!(await tableText()).includes(TEAM_CAMPAIGN));
    });
  } finally {
    await driver.quit();
  }
});
