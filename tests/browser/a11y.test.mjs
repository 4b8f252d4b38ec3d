// Accessibility audit in a real browser against `agenteval serve` on the
// demo data (run.sh runs `agenteval demo` first): axe-core (pinned in
// ui/package.json) runs its WCAG 2 A and AA rules on every screen and
// drawer, in English and Chinese, and the test fails on any serious or
// critical violation, naming the rule and the elements.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, LANGS, api, audit, describeViolations, findCampaign, launch, signIn } from "./helpers.mjs";

test("every screen passes axe-core's WCAG 2 A/AA rules, in both languages", { timeout: 600_000 }, async (t) => {
  const demo = await findCampaign((r) => r.exploration && r.fixed.runs_finished > 0, "a finished demo campaign");
  const id = demo.campaign.id;
  const runs = await api(`/api/campaigns/${id}/runs`);
  const failedRun = runs.find((r) => r.verdict === "failed") ?? runs[0];
  // A run of an agent that acts: its steps, one of them an error.
  const stepsRun = runs.find((r) => r.scenario_id === "office.invalid_range_retry" && r.verdict === "failed") ?? failedRun;
  const sessions = await api(`/api/exploration/campaigns/${id}/sessions`);
  const issue = demo.exploration.issues[0];
  // A campaign whose window is open, for the explore modal.
  const open = await api("/api/campaigns", {
    method: "POST",
    body: JSON.stringify({
      name: "Accessibility audit",
      target_id: demo.campaign.target_id,
      scenario_ids: [runs[0].scenario_id],
      duration_hours: 24,
      time_scale: 1,
      seed_set: demo.campaign.seed_set,
    }),
  });

  // Production conversations (tests/otlp/sample.jsonl) of the demo's
  // target: listed, opened, and counted on its report's coverage grid.
  const sample = await readFile(new URL("../otlp/sample.jsonl", import.meta.url), "utf8");
  await api(`/api/traces/import?source=sample.jsonl&target_id=${demo.campaign.target_id}`, { method: "POST", body: sample, headers: { "Content-Type": "text/plain" } });
  const conversation = (await api("/api/traces/conversations?limit=1")).conversations[0];

  const screens = [
    ["campaign list", "#/campaigns", "campaign-table"],
    ["campaign view", `#/campaigns/${id}`, "runs-table"],
    ["report: scores", `#/campaigns/${id}/report/scores`, "report-pass-rate"],
    ["report: per scenario", `#/campaigns/${id}/report/scenarios`, null],
    ["report: charts", `#/campaigns/${id}/report/charts`, null],
    ["report: analysis", `#/campaigns/${id}/report/analysis`, null],
    ["report: comparison", `#/campaigns/${id}/report/comparison`, null],
    ["report: exploration", `#/campaigns/${id}/report/exploration`, "exploration-findings"],
    ["report: an issue's sessions", `#/campaigns/${id}/report/exploration?issue=${encodeURIComponent(issue.key ?? issue.text)}`, "evidence-sessions-body"],
    ["run drawer", `#/campaigns/${id}/runs/${failedRun.id}`, '[data-testid="run-drawer"] .mantine-Drawer-body'],
    ["run drawer at a step", `#/campaigns/${id}/runs/${stepsRun.id}?turn=1&step=2`, "run-step"],
    ["session drawer", `#/campaigns/${id}/sessions/${sessions[0].id}`, '[data-testid="session-drawer"] .mantine-Drawer-body'],
    ["production conversations", "#/production", "conversation-table"],
    ["production conversation", `#/production/${conversation.id}`, '[data-testid="conversation-drawer"] .mantine-Drawer-body'],
    ["targets", "#/targets", "target-row"],
    ["settings", "#/settings", null],
  ];

  // The audit injects axe-core into the page, which the UI's content
  // security policy would refuse (flow.test.mjs checks that it does).
  const { page, close } = await launch({ bypassCSP: true });
  try {
    await signIn(page);
    for (const lang of LANGS) {
      await page.evaluate((l) => window.localStorage.setItem("agenteval.language", l), lang);
      for (const [name, hash, ready] of screens) {
        await t.test(`[${lang}] ${name}`, async () => {
          await page.goto(`${BASE}/${hash}`);
          await page.reload();
          // A test id, or a CSS selector for what has none of its own.
          if (ready) await (ready.startsWith("[") ? page.locator(ready) : page.getByTestId(ready)).first().waitFor();
          await page.waitForTimeout(400); // drawers and modals finish their transition
          const found = await audit(page);
          assert.deepEqual(found, [], `axe-core on ${name} (${lang}):\n${describeViolations(found)}`);
        });
      }
      await t.test(`[${lang}] campaign form and explore modal`, async () => {
        await page.goto(`${BASE}/#/campaigns`);
        await page.reload();
        await page.getByTestId("new-campaign").click();
        await page.locator('[data-testid="campaign-form"] .mantine-Modal-body').waitFor();
        await page.waitForTimeout(400);
        let found = await audit(page);
        assert.deepEqual(found, [], `axe-core on the campaign form (${lang}):\n${describeViolations(found)}`);
        await page.keyboard.press("Escape");
        // The explore modal, on a campaign whose window is open.
        await page.goto(`${BASE}/#/campaigns/${open.id}`);
        await page.reload();
        await page.getByTestId("open-explore").click();
        await page.locator('[data-testid="explore-modal"] .mantine-Modal-body').waitFor();
        await page.waitForTimeout(400);
        found = await audit(page);
        assert.deepEqual(found, [], `axe-core on the explore modal (${lang}):\n${describeViolations(found)}`);
        await page.getByTestId("explore-tab-person").click();
        await page.waitForTimeout(200);
        found = await audit(page);
        assert.deepEqual(found, [], `axe-core on the explore modal's manual tab (${lang}):\n${describeViolations(found)}`);
        await page.keyboard.press("Escape");
      });
      await t.test(`[${lang}] production: import summary and proposed seeds`, async () => {
        await page.goto(`${BASE}/#/production`);
        await page.reload();
        await page.getByTestId("import-traces").click();
        await page.getByTestId("import-file-input").setInputFiles(fileURLToPath(new URL("../otlp/sample.jsonl", import.meta.url)));
        await page.getByTestId("import-submit").click();
        await page.getByTestId("import-summary").waitFor();
        await page.waitForTimeout(400);
        let found = await audit(page);
        assert.deepEqual(found, [], `axe-core on the import summary (${lang}):\n${describeViolations(found)}`);
        await page.getByTestId("import-close").click();
        await page.getByTestId("conversation-select").first().check();
        await page.getByTestId("propose-seeds").click();
        await page.getByTestId("proposed-persona").first().waitFor();
        await page.waitForTimeout(400);
        found = await audit(page);
        assert.deepEqual(found, [], `axe-core on the proposed seeds (${lang}):\n${describeViolations(found)}`);
        await page.keyboard.press("Escape");
      });
    }
  } finally {
    await close();
  }
});
