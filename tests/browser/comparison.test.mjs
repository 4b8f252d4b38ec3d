// Periods side by side, in both languages at 1280x800: "Next period" asks
// first, says what it will start and names the period in the UI's language
// (cancelling starts nothing); the new period's report compares it with
// the period before by default, or with any other campaign of the target
// picked from a list: both sides' pass rates with their intervals, pass^k
// explained in one line, exploration apart, each scenario broke / fixed /
// same.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { api, assertNothingClipped, BASE, LANGS, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));

const WORDS = {
  en: { nextName: (n) => `${n} (next period)`, runs: "4 fixed-scenario runs", passK: /pass\^k: the chance that k runs/, same: "Same", onlyCurrent: "Only in this one" },
  zh: { nextName: (n) => `${n}（下一周期）`, runs: "4 次固定场景运行", passK: /pass\^k：同一场景连续 k 次运行全部通过的概率/, same: "不变", onlyCurrent: "仅在本活动中" },
};

async function shot(page, name) {
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SHOTS, name) });
}

/** Waits until the campaign's window has closed and its runs are done. */
async function finished(id) {
  for (let i = 0; i < 300; i++) {
    const r = await api(`/api/campaigns/${id}/report`);
    if (r.fixed.runs_pending === 0 && r.fixed.runs_finished === r.fixed.runs_planned && r.campaign.status === "finalized") return r;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`campaign ${id} did not finish`);
}

test("periods side by side, the next one asked for and named, in both languages", { timeout: 300_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const target = await api("/api/targets", { method: "POST", body: JSON.stringify({ name: "Comparison walk", channel: { kind: "builtin", agent: "demo" } }) });
  // One campaign-hour at 10000x: the window closes in a third of a second.
  const quick = (name, plan) => api("/api/campaigns", { method: "POST", body: JSON.stringify({ name, target_id: target.id, plan, duration_hours: 1, time_scale: 10000 }) });
  const plan = { entries: [{ scenario_id: "cs.two_requests", rounds: 2 }, { scenario_id: "cs.opening_hours", rounds: 2 }] };
  const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 } });
  try {
    await signIn(page);
    for (const lang of LANGS) {
      const w = WORDS[lang];
      const first = await quick(`Week 1 ${lang}`, plan);
      await quick(`Hours only ${lang}`, { entries: [{ scenario_id: "cs.opening_hours", rounds: 2 }] });
      await finished(first.id);
      let next;

      await t.test(`${lang}: "Next period" asks first, says what it starts and names it in the UI's language`, async () => {
        await page.goto(`${BASE}/#/campaigns/${first.id}`);
        await setLanguage(page, lang);
        const before = (await api("/api/campaigns")).length;
        await page.getByTestId("next-period").click();
        const modal = page.getByTestId("next-period-modal");
        await modal.waitFor();
        assert.equal(await modal.getByTestId("next-period-name").inputValue(), w.nextName(first.name));
        assert.equal((await modal.getByTestId("next-period-runs").textContent()).trim(), w.runs);
        await shot(page, `next-period-${lang}.png`);
        await assertNothingClipped(page, `the next-period confirmation (${lang})`);
        await page.getByRole("button", { name: lang === "zh" ? "取消" : "Cancel" }).click();
        await modal.waitFor({ state: "detached" });
        assert.equal((await api("/api/campaigns")).length, before, "cancelling starts nothing");

        await page.getByTestId("next-period").click();
        await modal.getByTestId("next-period-name").fill(`Week 2 ${lang}`);
        await modal.getByTestId("next-period-confirm").click();
        await page.waitForURL((url) => !url.hash.includes(first.id) && /#\/campaigns\/[0-9a-f-]{36}$/.test(url.hash));
        await page.getByTestId("campaign-title").filter({ hasText: `Week 2 ${lang}` }).waitFor();
        next = (await api("/api/campaigns")).find((c) => c.name === `Week 2 ${lang}`);
        assert.equal(next.previous_campaign_id, first.id, "the new period follows this one");
        assert.equal((await api(`/api/campaigns/${next.id}/report`)).fixed.runs_planned, 4, "it runs what the confirmation said");
      });

      await t.test(`${lang}: the new period beside the one before, or beside any other of its target`, async () => {
        await finished(next.id);
        await page.goto(`${BASE}/#/campaigns/${next.id}/report/comparison`);
        const sides = page.getByTestId("comparison-sides");
        await sides.waitFor();
        const header = await sides.locator("thead").innerText();
        assert.ok(header.includes(first.name) && header.includes(next.name), `both periods are columns: ${header}`);
        const rate = page.getByTestId("comparison-pass-rate").locator("td");
        assert.equal(await rate.count(), 2, "a pass rate per side");
        for (const cell of await rate.all()) assert.match(await cell.innerText(), /%[\s\S]*95%/, "each with its interval");
        await page.getByTestId("comparison-pass-k-2").waitFor();
        assert.match(await page.getByTestId("pass-k-explained").innerText(), w.passK);
        const rows = page.getByTestId("comparison-scenario");
        assert.equal(await rows.count(), 2, "both scenarios of the plan");
        for (const row of await rows.all()) assert.equal(await row.getAttribute("data-change"), "same", "the demo agent answers alike each week");
        assert.ok((await page.getByTestId("comparison-scenarios").innerText()).includes(w.same));
        await shot(page, `comparison-${lang}.png`);
        await assertNothingClipped(page, `the comparison (${lang})`);

        // Any other campaign of the target: the one that ran only one scenario.
        const others = (await api("/api/campaigns")).filter((c) => c.target_id === target.id && c.id !== next.id);
        await page.getByTestId("comparison-baseline").click();
        const options = page.getByRole("option");
        assert.equal(await options.count(), others.length, "every other campaign of the target, and only those");
        await options.filter({ hasText: `Hours only ${lang}` }).click();
        await page.getByTestId("comparison-scenario").filter({ hasText: "Two requests" }).waitFor();
        const two = page.getByTestId("comparison-scenario").filter({ hasText: "Two requests" });
        await page.waitForFunction(() => document.querySelector('[data-testid="comparison-sides"] thead')?.textContent?.includes("Hours only"));
        assert.equal(await two.getAttribute("data-change"), "only_current");
        assert.ok((await two.innerText()).includes(w.onlyCurrent));
      });
    }
    assert.deepEqual(pageErrors, [], "the page raised no error");
  } finally {
    await close();
  }
});
