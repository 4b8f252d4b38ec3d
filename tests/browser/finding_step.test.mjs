// A judge finding about a step, followed to that step: a person's session
// with the demo agent, whose tools are the office pack's task with an
// invalid range, repeats the failing call as it was. The offline judge
// names the step; the report counts it per kind and links to it, and the
// link opens the session drawer at that step, lit and scrolled to, in both
// languages.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, LANGS, api, audit, describeViolations, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const WORDS = {
  en: { kind: /Repeated a failed call ×1/, link: /turn 1, step \d+/, dimension: "Steps: " },
  zh: { kind: /原样重复失败的调用 ×1/, link: /第 1 轮第 \d+ 步/, dimension: "操作步骤：" },
};

test("a finding about a step leads to that step, in both languages", { timeout: 240_000 }, async () => {
  await mkdir(SHOTS, { recursive: true });
  const post = (path, body) => api(path, { method: "POST", body: JSON.stringify(body) });
  const demo = (await api("/api/targets")).find((t) => t.channel.kind === "builtin");
  const campaign = await post("/api/campaigns", {
    name: "Steps reviewed",
    target_id: demo.id,
    duration_hours: 10,
    seed_set: { personas: [{ id: "p1", name: "新同事" }], goals: [{ id: "g1", title: "查本周谁迟到了" }] },
    tool_env: "office.invalid_range_retry",
  });
  const session = await post("/api/exploration/sessions", {
    campaign_id: campaign.id,
    persona: { name: "新同事" },
    goal: "查本周谁迟到了",
    seed_ref: { persona_id: "p1", goal_id: "g1" },
    played_by: "person",
  });
  const reply = await post(`/api/exploration/sessions/${session.id}/messages`, {
    content: "读取 员工考勤.xlsx 的 A0:F10 区域，看看本周谁迟到了。",
  });
  assert.ok(reply.steps.filter((s) => s.answer.kind === "error").length >= 2, "the agent's call failed, and again");
  await post(`/api/exploration/sessions/${session.id}/close`, { goal_achieved: false, end_reason: "user_gave_up" });
  // The server's judge reviews the closed session (offline: the heuristic judge).
  let finding;
  for (let i = 0; i < 100 && !finding; i++) {
    const report = await api(`/api/campaigns/${campaign.id}/report`);
    finding = report.exploration?.findings.find((f) => f.dimension === "trajectory" && f.step);
    if (!finding) await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(finding, "the judge named a step");
  assert.equal(finding.text.key, "judge-repeated-failed-call");
  const named = reply.steps[finding.step - 1];
  assert.equal(named.answer.kind, "error", "the step it names failed");

  const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  try {
    await signIn(page);
    for (const lang of LANGS) {
      const w = WORDS[lang];
      await setLanguage(page, lang);
      await page.goto(`${BASE}/#/campaigns/${campaign.id}/report/exploration`);
      const kinds = page.getByTestId("trajectory-kinds");
      await kinds.waitFor();
      assert.match(await kinds.innerText(), w.kind);
      const row = page.getByTestId("judge-finding").filter({ hasText: w.dimension });
      const link = row.getByTestId("finding-link");
      assert.match(await link.innerText(), w.link);
      await page.screenshot({ path: join(SHOTS, `finding-step-report-${lang}.png`) });
      await link.click();
      const drawer = page.getByTestId("session-drawer");
      const lit = drawer.locator('[data-testid="session-step"][data-highlighted="true"]');
      await lit.waitFor();
      assert.equal(await lit.getAttribute("data-step"), `1-${finding.step}`);
      assert.equal(await lit.getByTestId("step-error-code").textContent(), named.answer.value.code);
      assert.ok(page.url().includes(`step=${finding.step}`), page.url());
      // The drawer's own finding links to the same step.
      const own = drawer.getByTestId("finding-step-link").first();
      assert.match(await own.innerText(), lang === "zh" ? /第 1 轮第 \d+ 步/ : /Turn 1, step \d+/);
      const violations = await audit(page);
      assert.deepEqual(violations, [], describeViolations(violations));
      await page.screenshot({ path: join(SHOTS, `finding-step-${lang}.png`) });
    }
    assert.deepEqual(pageErrors, []);
  } finally {
    await close();
  }
});
