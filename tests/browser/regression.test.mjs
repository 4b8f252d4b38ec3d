// A finding becomes a regression scenario, in both languages at 1280x800:
// from the demo's session where the target invented "12.5", the finding's
// "Make a regression scenario" drafts the scenario (the user's turns up to
// the finding, a number gate, the lineage), as does any reply the user
// flags; the user edits it, a broken
// edit is refused by line, the fixed one is saved, listed under the user's
// own packs, and the next period of the campaign runs it.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { api, assertNothingClipped, BASE, findCampaign, LANGS, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const WORDS = {
  en: { flagged: (n) => new RegExp(`From turn ${n}: `), lineage: /From turn \d+: .*12\.5/, saved: /Saved to your pack “regressions”/, refused: /does not load: .*, line \d+: /, own: "Your packs" },
  zh: { flagged: (n) => new RegExp(`来自第 ${n} 轮：`), lineage: /来自第 \d+ 轮：.*12\.5/, saved: /已保存到你的场景包“regressions”/, refused: /无法加载：.* 第 \d+ 行，/, own: "自定义场景包" },
};

test("a finding becomes a regression scenario that the next period runs, in both languages", { timeout: 600_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const demo = await findCampaign(
    (r) => (r.exploration?.findings ?? []).some((f) => f.text?.key === "judge-invented-figure" && f.turn),
    "a demo campaign whose judge found an invented figure",
  );
  const finding = demo.exploration.findings.find((f) => f.text?.key === "judge-invented-figure" && f.turn);
  const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 } });
  try {
    await signIn(page);
    for (const lang of LANGS) {
      const w = WORDS[lang];
      await t.test(`${lang}: finding -> draft -> edit -> save -> listed as the user's -> in the next period`, async () => {
        const sessionUrl = `${BASE}/#/campaigns/${demo.campaign.id}/sessions/${finding.session_id}`;
        await page.goto(sessionUrl);
        await setLanguage(page, lang);

        // Any reply can be flagged, found by the judge or not: the draft
        // runs up to its turn.
        const conversation = page.getByTestId("session-conversation");
        await conversation.getByTestId("guard-reply").last().waitFor();
        const rounds = await conversation.locator('[data-speaker="user"]').count();
        await conversation.getByTestId("guard-reply").last().scrollIntoViewIfNeeded();
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(SHOTS, `regression-flag-reply-${lang}.png`) });
        await conversation.getByTestId("guard-reply").last().click();
        const flagged = page.getByTestId("regression-modal");
        await flagged.getByTestId("regression-yaml").waitFor();
        assert.match(await flagged.getByTestId("regression-lineage").innerText(), w.flagged(rounds));
        await page.keyboard.press("Escape");
        await flagged.waitFor({ state: "hidden" });

        // From an issue of the report: each of its sessions can be drafted,
        // at the turn the issue points at.
        await page.goto(`${BASE}/#/campaigns/${demo.campaign.id}/report/exploration`);
        await page.getByTestId("issue-row").first().click();
        const draftButton = page.getByTestId("evidence-sessions-body").getByTestId("issue-make-regression").first();
        const box = await draftButton.boundingBox();
        assert.ok(box && box.height < 40, `the short button keeps to one line: ${JSON.stringify(box)}`);
        await draftButton.click();
        const fromIssue = page.getByTestId("regression-modal");
        await fromIssue.getByTestId("regression-yaml").waitFor();
        assert.match(await fromIssue.getByTestId("regression-lineage").innerText(), w.flagged("\\d+"));
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(SHOTS, `regression-from-issue-${lang}.png`) });
        await page.keyboard.press("Escape");
        await fromIssue.waitFor({ state: "hidden" });
        await page.goto(`${BASE}/#/campaigns/${demo.campaign.id}`);
        await page.goto(sessionUrl);
        const row = page.getByTestId("session-finding").filter({ hasText: "12.5" }).first();
        await row.getByTestId("make-regression").click();
        const modal = page.getByTestId("regression-modal");
        const yaml = modal.getByTestId("regression-yaml");
        await yaml.waitFor();
        assert.match(await modal.getByTestId("regression-lineage").innerText(), w.lineage);
        const drafted = await yaml.inputValue();
        assert.match(drafted, /type: no_unverified_numbers/);
        assert.match(drafted, new RegExp(`session_id: ${finding.session_id}`));
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(SHOTS, `regression-draft-${lang}.png`) });
        await assertNothingClipped(page, `the regression draft (${lang})`);

        // A broken edit is refused, by line, and nothing is saved.
        await yaml.fill(drafted.replace("type: no_unverified_numbers", "type: no_such_check"));
        await modal.getByTestId("regression-save").click();
        await modal.getByText(w.refused).first().waitFor();

        // The user's edit: its own id and title; saved.
        const id = `regression.trend.${lang}`;
        const title = `Trend without invented figures (${lang})`;
        const edited = drafted.replace(/- id: .*/, `- id: ${id}`).replace(/  title: .*/, `  title: ${title}`);
        await yaml.fill(edited);
        await modal.getByTestId("regression-file").fill(`trend-${lang}.yaml`);
        await modal.getByTestId("regression-save").click();
        await modal.getByTestId("regression-saved").filter({ hasText: w.saved }).waitFor();
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(SHOTS, `regression-saved-${lang}.png`) });
        const scenario = (await api("/api/scenarios")).find((s) => s.id === id);
        assert.ok(scenario && !scenario.shipped && scenario.pack === "regressions", `listed as the user's: ${JSON.stringify(scenario)}`);
        await page.keyboard.press("Escape");

        // Under "Your packs" in the campaign form.
        await page.goto(`${BASE}/#/campaigns`);
        await page.getByTestId("new-campaign").click();
        const own = page.getByTestId("own-scenarios");
        await own.getByText(title).waitFor();
        assert.match(await own.innerText(), new RegExp(w.own));
        await page.keyboard.press("Escape");
        await page.getByTestId("campaign-discard-confirm").click().catch(() => undefined);

        // The next period runs it.
        await page.goto(`${BASE}/#/campaigns/${demo.campaign.id}`);
        await page.getByTestId("next-period").click();
        await page.getByTestId("next-period-name").fill(`With regressions ${lang}`);
        await page.getByTestId("next-period-confirm").click();
        await page.getByTestId("campaign-title").filter({ hasText: `With regressions ${lang}` }).waitFor();
        const next = (await api("/api/campaigns")).find((c) => c.name === `With regressions ${lang}`);
        assert.ok(next.plan.entries.some((e) => e.scenario_id === id), "the next period's plan holds the promoted scenario");

        // Its report: found by exploration, now guarded, with where it was found.
        await page.goto(`${BASE}/#/campaigns/${next.id}/report/scenarios`);
        const guarded = page.getByTestId("guarded-scenario").filter({ hasText: title });
        await guarded.waitFor({ timeout: 120_000 });
        assert.match(await guarded.innerText(), /12\.5/, "the finding it guards against");
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(SHOTS, `regression-guarded-${lang}.png`) });
      });
    }
    assert.deepEqual(pageErrors, [], "the page raised no error");
  } finally {
    await close();
  }
});
