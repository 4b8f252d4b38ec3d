// A run against a target nothing listens on ends in error, and its drawer
// says why in the reader's words, as the connection test does; an errored
// run shows no empty checks heading.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, LANGS, api, clipped, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const WORDS = {
  en: { kind: "Target error", detail: "nothing is listening at 127.0.0.1:9", checks: "Checks" },
  zh: { kind: "评测对象出错", detail: "127.0.0.1:9 上没有服务在监听", checks: "检查" },
};

test("an errored run says why in the reader's words", { timeout: 120_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const target = await api("/api/targets", {
    method: "POST",
    body: JSON.stringify({ name: "Nobody home", channel: { kind: "openai", base_url: "http://127.0.0.1:9/v1", model: "none" }, max_retries: 0, timeout_ms: 1000 }),
  });
  const [scenario] = await api("/api/scenarios");
  const campaign = await api("/api/campaigns", {
    method: "POST",
    body: JSON.stringify({ name: "Unreachable target", target_id: target.id, scenario_ids: [scenario.id], duration_hours: 1 }),
  });
  let run = null;
  for (let i = 0; i < 100 && !run; i++) {
    const runs = await api(`/api/campaigns/${campaign.id}/runs`);
    run = runs.find((r) => r.verdict === "error") ?? null;
    if (!run) await new Promise((r) => setTimeout(r, 300));
  }
  assert.ok(run, "the run ended in error");
  assert.equal(run.error.kind, "target_error");
  const { page, pageErrors, close } = await launch();
  try {
    await signIn(page);
    for (const lang of LANGS) {
      await t.test(lang, async () => {
        const w = WORDS[lang];
        await setLanguage(page, lang);
        await page.goto(`${BASE}/#/campaigns/${campaign.id}/runs/${run.id}`);
        assert.equal(await page.getByTestId("run-error-kind").textContent(), w.kind);
        const detail = await page.getByTestId("run-error-detail").textContent();
        assert.equal(detail, w.detail, "what happened, without the client's English");
        const headings = await page.getByRole("dialog").getByRole("heading").allTextContents();
        assert.ok(!headings.includes(w.checks), `no checks heading over nothing: ${headings}`);
        assert.deepEqual(await clipped(page), [], "nothing cut off");
        await page.screenshot({ path: join(SHOTS, `run-error-${lang}.png`) });
      });
    }
    assert.deepEqual(pageErrors, []);
  } finally {
    await close();
    // Ended, so that the tests after this one meet no running campaign of it.
    await api(`/api/campaigns/${campaign.id}/finalize`, { method: "POST", body: "{}" });
  }
});
