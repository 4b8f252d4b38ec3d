// Exploration of an agent that acts: a campaign names the office pack's
// top-3 task as its sessions' tool environment, and a person's session
// with the demo agent is played over the API. The session drawer shows
// the agent's steps (the tools over the task's real spreadsheet) while the
// session runs and after it ends, in both languages.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, LANGS, api, audit, describeViolations, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const STEP = { en: "Step 1", zh: "第 1 步" };

test("a session's steps in its drawer while it runs and after, in both languages", { timeout: 240_000 }, async () => {
  await mkdir(SHOTS, { recursive: true });
  const post = (path, body) => api(path, { method: "POST", body: JSON.stringify(body) });
  const targets = await api("/api/targets");
  const demo = targets.find((t) => t.channel.kind === "builtin");
  assert.ok(demo, "the demo's built-in target");
  const campaign = await post("/api/campaigns", {
    name: "Office exploration",
    target_id: demo.id,
    duration_hours: 10,
    seed_set: { personas: [{ id: "p1", name: "新同事" }], goals: [{ id: "g1", title: "找出销售额前三的区域" }] },
    tool_env: "office.top3_regions",
  });
  assert.equal(campaign.tool_env, "office.top3_regions");
  const session = await post("/api/exploration/sessions", {
    campaign_id: campaign.id,
    persona: { name: "新同事" },
    goal: "找出销售额前三的区域",
    trigger: "manual",
    played_by: "person",
  });
  const reply = await post(`/api/exploration/sessions/${session.id}/messages`, {
    content: "从销售数据.xlsx 中找出销售额排名前 3 的区域",
  });
  const names = reply.steps.map((s) => s.call.name);
  assert.ok(names.includes("DATA_QUERY"), `the agent queried the sheet: ${names}`);

  const { page, pageErrors, close } = await launch({ bypassCSP: true });
  try {
    await signIn(page);
    const url = `${BASE}/#/campaigns/${campaign.id}/sessions/${session.id}`;
    for (const lang of LANGS) {
      await setLanguage(page, lang);
      await page.goto(url);
      const drawer = page.getByTestId("session-drawer");
      const first = drawer.getByTestId("session-step").first();
      await first.waitFor();
      assert.match(await first.innerText(), new RegExp(STEP[lang]));
      assert.equal(await drawer.getByTestId("session-step").count(), reply.steps.length, "every step shown");
      assert.match(await drawer.innerText(), /DATA_QUERY/);
      const violations = await audit(page);
      assert.deepEqual(violations, [], describeViolations(violations));
      await page.screenshot({ path: join(SHOTS, `session-steps-${lang}.png`) });
    }
    // After the session ends (discarded: no record, nothing for the judge),
    // the steps are still there.
    await post(`/api/exploration/sessions/${session.id}/discard`, {});
    await page.goto(url);
    const drawer = page.getByTestId("session-drawer");
    await drawer.getByTestId("session-step").first().waitFor();
    assert.equal(await drawer.getByTestId("session-step").count(), reply.steps.length);
    assert.deepEqual(pageErrors, []);
  } finally {
    await close();
  }
});
