// A manager with a viewer key, in a real browser against `agenteval serve`
// (started by run.sh), in both languages: the UI asks for the key once,
// keeps it for the tab's session only (a reload keeps it, a new tab asks
// again, nothing stays in localStorage), shows the key's name and role
// with a read-only badge, and offers no action the role may not take:
// no new campaign, no exploration, no finalizing, no labelling, no target
// changes, no rating. An editor's key shows its actions. Screenshots of
// the viewer's campaign page go to docs/screenshots/ at 1280x800.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, LANGS, api, assertNothingClipped, launch, setLanguage } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));

const WORDS = {
  en: { who: "manager · viewer", readOnly: "Read only", editor: "lead · editor" },
  zh: { who: "manager · 查看者", readOnly: "只读", editor: "lead · 编辑者" },
};

/** Types `key` into the prompt and waits for the campaign list. */
async function giveKey(page, key) {
  await page.getByTestId("api-key-input").fill(key);
  await page.getByTestId("api-key-submit").click();
  await page.getByTestId("campaign-table").waitFor();
}

test("a viewer key reads everything and is offered no change, in both languages", { timeout: 300_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const viewer = (await api("/api/keys", { method: "POST", body: JSON.stringify({ name: "manager", role: "viewer" }) })).key;
  const editor = (await api("/api/keys", { method: "POST", body: JSON.stringify({ name: "lead", role: "editor" }) })).key;
  const [campaign] = await api("/api/campaigns");
  assert.ok(campaign, "run.sh serves the demo's campaign");
  const { context, page, pageErrors, close } = await launch();
  try {
    await t.test("the key is asked for once and kept for the tab's session only", async () => {
      await page.goto(`${BASE}/#/campaigns`);
      await page.getByTestId("api-key-input").fill("not-a-key");
      await page.getByTestId("api-key-submit").click();
      await page.getByTestId("api-key-refused").waitFor();
      await giveKey(page, viewer);
      await page.reload();
      await page.getByTestId("campaign-table").waitFor();
      assert.equal(await page.getByTestId("api-key-input").count(), 0, "a reload keeps the key");
      assert.equal(await page.evaluate(() => window.localStorage.getItem("agenteval.apiKey")), null, "the key is not kept beyond the session");
      const other = await context.newPage();
      await other.goto(`${BASE}/#/campaigns`);
      await other.getByTestId("api-key-input").waitFor();
      await other.close();
    });

    for (const lang of LANGS) {
      const w = WORDS[lang];
      await t.test(`${lang}: the header names the key and its role; no action to change anything`, async () => {
        await setLanguage(page, lang);
        await page.getByTestId("campaign-table").waitFor();
        assert.equal(await page.getByTestId("who-name").textContent(), w.who);
        assert.equal(await page.getByTestId("who-read-only").textContent(), w.readOnly);
        assert.equal(await page.getByTestId("new-campaign").count(), 0, "no new campaign");
        assert.equal(await page.getByTestId("patrol-toggle").count(), 0, "no pausing the patrol agent");

        await page.goto(`${BASE}/#/campaigns/${campaign.id}`);
        await page.getByTestId("campaign-title").waitFor();
        await page.getByTestId("export-menu").waitFor();
        await page.getByTestId("open-report").waitFor();
        for (const id of ["open-explore", "finalize", "next-period", "open-blind-review"]) {
          assert.equal(await page.getByTestId(id).count(), 0, `no ${id}`);
        }
        await assertNothingClipped(page, `the viewer's campaign page (${lang})`);
        await page.screenshot({ path: join(SHOTS, `viewer-campaign-${lang}.png`) });

        await page.getByTestId("nav-targets").click();
        await page.getByTestId("target-table").waitFor();
        for (const id of ["new-target", "target-edit", "target-delete", "target-test"]) {
          assert.equal(await page.getByTestId(id).count(), 0, `no ${id}`);
        }
        await page.getByTestId("nav-campaigns").click();
      });
    }

    await t.test("signing out asks for a key again; an editor's key shows its actions", async () => {
      await page.getByTestId("sign-out").click();
      await page.getByTestId("api-key-input").waitFor();
      await giveKey(page, editor);
      assert.equal(await page.getByTestId("who-name").textContent(), WORDS[LANGS[LANGS.length - 1]].editor);
      assert.equal(await page.getByTestId("who-read-only").count(), 0);
      await page.getByTestId("new-campaign").waitFor();
      await setLanguage(page, "en");
    });
    assert.deepEqual(pageErrors, [], "no page error");
  } finally {
    await close();
  }
});
