// The steps of an agent that acts, in the run drawer: the demo agent
// repeats a failing call in `office.invalid_range_retry`; the drawer's
// failed check names the step, and the conversation lists each step with
// its tool, arguments and the error's code, in both languages.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, LANGS, api, clipped, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const WORDS = {
  en: { kind: "Recovers from tool errors", step: /step 2 repeats the call of DATA_QUERY/ },
  zh: { kind: "从工具错误中恢复", step: /第 2 步重复了第 1 步失败的 DATA_QUERY 调用/ },
};

test("a failed run's steps in its drawer, in both languages", { timeout: 120_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  let found = null;
  for (const c of await api("/api/campaigns")) {
    const runs = await api(`/api/campaigns/${c.id}/runs`);
    const run = runs.find((r) => r.scenario_id === "office.invalid_range_retry" && r.verdict === "failed");
    if (run) {
      found = { campaign: c.id, run };
      break;
    }
  }
  assert.ok(found, "the demo campaign holds a failed run of office.invalid_range_retry");
  const turns = await api(`/api/runs/${found.run.id}/turns`);
  const steps = turns.find((x) => x.role === "target").steps;
  assert.deepEqual(
    steps.map((s) => s.answer.kind === "error" ? s.answer.value.code : s.answer.kind),
    ["INVALID_RANGE", "INVALID_RANGE"],
    "the demo agent repeated the identical failing call once",
  );
  const { page, pageErrors, close } = await launch();
  try {
    await signIn(page);
    for (const lang of LANGS) {
      await t.test(lang, async () => {
        const w = WORDS[lang];
        await setLanguage(page, lang);
        await page.goto(`${BASE}/#/campaigns/${found.campaign}/runs/${found.run.id}`);
        const drawer = page.getByRole("dialog");
        await drawer.getByText(w.kind).first().waitFor();
        const text = await drawer.textContent();
        assert.match(text, w.step, "the failed check names the step");
        assert.ok(!text.includes("`"), "code spans are shown as code, not between backticks");
        const shown = await page.getByTestId("run-step").allTextContents();
        assert.equal(shown.length, 2, `each step listed: ${shown}`);
        assert.match(shown[0], /^DATA_QUERY\(.*"query_range":"A0:F10".*\) → INVALID_RANGE$/);
        assert.deepEqual(await clipped(page), [], "nothing cut off");
        await page.screenshot({ path: join(SHOTS, `run-steps-${lang}.png`) });
      });
    }
    assert.deepEqual(pageErrors, []);
  } finally {
    await close();
  }
});
