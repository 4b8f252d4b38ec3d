// A person labels the judge's sample blind in a real browser against
// `agenteval serve` on the demo data (run.sh runs `agenteval demo` first;
// its sessions are reviewed by the heuristic judge): the campaign's blind
// review queue shows a conversation and the judge's criteria but not the
// judge's scores; after submitting, the person's scores and the judge's
// are side by side; after a few labels the report shows n and kappa per
// criterion with a calibrated/advisory badge. The demo's fixed runs with a
// rubric check are in the queue too: one is labelled per language, rubric
// by rubric, then the report shows the rubric criterion. In English and
// Chinese at 1280x800, with no clipped text.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, LANGS, api, assertNothingClipped, findCampaign, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const CRITERIA = ["attitude", "professionalism", "hallucination"];
/** The person's scores of the k-th label: varied, so that kappa is defined. */
const PLAN = [
  { attitude: 5, professionalism: 1, hallucination: 3 },
  { attitude: 2, professionalism: 4, hallucination: 5 },
  { attitude: 4, professionalism: 2, hallucination: 1 },
  { attitude: 1, professionalism: 5, hallucination: 4 },
];
const PER_LANGUAGE = 2;
/** The person's score of every rubric of the run labelled in each language. */
const RUBRIC_SCORE = { en: 4, zh: 2 };
const WORDS = {
  en: { advisory: "Advisory", title: "Blind review", runs: "Fixed runs (rubric checks)", run: "Fixed run · rubric check" },
  zh: { advisory: "仅供参考", title: "盲评", runs: "固定场景运行（评分标准检查）", run: "固定场景运行 · 评分标准检查" },
};

async function shot(page, name) {
  await page.waitForTimeout(300); // drawers finish their transition
  await page.screenshot({ path: join(SHOTS, name) });
}

test("blind labels of the judge's sample give kappa per criterion in the report", { timeout: 600_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const demo = await findCampaign(
    (r) => (r.judge_calibration?.unlabelled ?? 0) >= PLAN.length && (r.judge_calibration?.runs_unlabelled ?? 0) >= LANGS.length,
    `a demo campaign with at least ${PLAN.length} judged sessions and ${LANGS.length} runs with rubric checks nobody labelled`,
  );
  const id = demo.campaign.id;
  const labelledBefore = demo.judge_calibration.labelled;
  const rubricBefore = demo.judge_calibration.criteria.find((k) => k.criterion === "rubric")?.items ?? 0;

  const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 } });
  // Every queue answer the UI receives, to check it carried no judge score.
  const queueBodies = [];
  const runQueueBodies = [];
  page.on("response", async (res) => {
    if (res.url().includes("/blind-queue")) queueBodies.push(await res.text().catch(() => ""));
    if (res.url().includes("/blind-run-queue")) runQueueBodies.push(await res.text().catch(() => ""));
  });
  let labelled = 0;
  let rubricsLabelled = 0;
  try {
    await signIn(page);
    for (const lang of LANGS) {
      await t.test(`[${lang}] label blind, then see both, then kappa in the report`, async () => {
        await page.goto(`${BASE}/#/campaigns/${id}`);
        await setLanguage(page, lang);
        await page.getByTestId("open-blind-review").click();
        await page.waitForURL(new RegExp(`#/campaigns/${id}/blind$`));
        const drawer = page.getByTestId("blind-review");
        await drawer.waitFor();
        assert.equal((await page.locator(".mantine-Drawer-title").textContent()).trim(), WORDS[lang].title, "the drawer is titled in the UI language");

        for (let k = 0; k < PER_LANGUAGE; k += 1) {
          const item = page.getByTestId("blind-item");
          await item.waitFor();
          await page.getByTestId("blind-conversation").getByTestId("turn").first().waitFor();
          const sid = await item.getAttribute("data-session");
          const session = await api(`/api/exploration/sessions/${sid}`);
          const judge = session.judge_review.dimensions;
          assert.ok(judge, "a queued session was scored by the judge");

          // Before submitting: the criteria, not the verdict.
          assert.equal(await page.getByTestId("blind-revealed").count(), 0, "nothing is revealed yet");
          for (const c of CRITERIA) {
            assert.equal(await page.getByTestId(`blind-judge-${c}`).count(), 0, `the judge's ${c} score is hidden`);
            await page.getByTestId(`blind-score-${c}`).waitFor();
          }
          assert.equal(await page.getByTestId("blind-submit").isDisabled(), true, "every criterion must be scored first");
          if (k === 0) {
            await assertNothingClipped(page, `blind review before submitting (${lang})`);
            await shot(page, `blind-review-${lang}.png`);
          }

          const mine = PLAN[labelled];
          for (const c of CRITERIA) {
            await page.getByTestId(`blind-score-${c}`).getByText(String(mine[c]), { exact: true }).click();
          }
          await page.getByTestId("blind-submit").click();
          await page.getByTestId("blind-revealed").waitFor();
          labelled += 1;
          for (const c of CRITERIA) {
            assert.equal((await page.getByTestId(`blind-mine-${c}`).textContent()).trim(), String(mine[c]), `my ${c} score is shown`);
            assert.equal((await page.getByTestId(`blind-judge-${c}`).textContent()).trim(), String(judge[c].score), `the judge's ${c} score is shown beside it`);
          }
          if (k === 0) {
            await assertNothingClipped(page, `blind review after submitting (${lang})`);
            await shot(page, `blind-review-revealed-${lang}.png`);
          }
          await page.getByTestId("blind-next").click();
          if (k + 1 < PER_LANGUAGE) {
            await page.waitForFunction((prev) => {
              const el = document.querySelector('[data-testid="blind-item"]');
              return el && el.getAttribute("data-session") !== prev && !document.querySelector('[data-testid="blind-revealed"]');
            }, sid);
          }
        }

        // A fixed run with a rubric check, beside the sessions: the
        // conversation and the rubric, not the judge's score.
        await page.getByTestId("blind-kind-choice").getByText(WORDS[lang].runs, { exact: true }).click();
        const runItem = page.getByTestId("blind-item");
        await page.waitForSelector('[data-testid="blind-item"][data-run]');
        await page.getByTestId("blind-conversation").getByTestId("turn").first().waitFor();
        assert.equal((await page.getByTestId("blind-kind").textContent()).trim(), WORDS[lang].run, "the item says it is a fixed run");
        const rid = await runItem.getAttribute("data-run");
        const run = (await api(`/api/campaigns/${id}/runs`)).find((r) => r.id === rid);
        assert.ok(run, "the queued run is one of the campaign's");
        const pickers = page.locator('[data-testid^="blind-rubric-score-"]');
        const indexes = [];
        for (const el of await pickers.all()) indexes.push(Number((await el.getAttribute("data-testid")).replace("blind-rubric-score-", "")));
        assert.ok(indexes.length >= 1, "at least one rubric to rate");
        for (const i of indexes) {
          assert.equal(run.check_results[i].kind, "rubric", `check ${i} of the run is a rubric check`);
          assert.equal(await page.getByTestId(`blind-judge-rubric-${i}`).count(), 0, "the judge's rubric score is hidden");
          assert.ok((await page.getByTestId(`blind-rubric-${i}`).getByTestId("blind-rubric-text").textContent()).trim().length > 0, "the rubric is shown");
        }
        assert.equal(await page.getByTestId("blind-revealed").count(), 0, "nothing is revealed yet");
        assert.equal(await page.getByTestId("blind-submit").isDisabled(), true, "every rubric must be scored first");
        await assertNothingClipped(page, `blind review of a run before submitting (${lang})`);
        await shot(page, `blind-review-run-${lang}.png`);
        for (const i of indexes) {
          await page.getByTestId(`blind-rubric-score-${i}`).getByText(String(RUBRIC_SCORE[lang]), { exact: true }).click();
        }
        await page.getByTestId("blind-submit").click();
        await page.getByTestId("blind-revealed").waitFor();
        rubricsLabelled += indexes.length;
        for (const i of indexes) {
          assert.equal((await page.getByTestId(`blind-mine-rubric-${i}`).textContent()).trim(), String(RUBRIC_SCORE[lang]), "my rubric score is shown");
          assert.equal((await page.getByTestId(`blind-judge-rubric-${i}`).textContent()).trim(), String(run.check_results[i].score), "the judge's rubric score is shown beside it");
        }
        await assertNothingClipped(page, `blind review of a run after submitting (${lang})`);
        await shot(page, `blind-review-run-revealed-${lang}.png`);

        // Closed, the report's exploration tab: n and kappa per criterion.
        await page.keyboard.press("Escape");
        await page.waitForURL(new RegExp(`#/campaigns/${id}$`));
        await page.getByTestId("open-report").click();
        // The scores tab says the judge's rubric scores are advisory.
        await page.getByTestId("tab-scores").click();
        const rubricJudge = page.getByTestId("rubric-judge");
        await rubricJudge.waitFor();
        assert.equal((await rubricJudge.getByTestId("calibration-badge").textContent()).trim(), WORDS[lang].advisory, "the judge's rubric scores are advisory on the scores tab");
        await page.getByTestId("tab-exploration").click();
        await page.waitForURL(/\/report\/exploration$/);
        const table = page.getByTestId("calibration-table");
        await table.waitFor();
        for (const c of CRITERIA) {
          const row = page.getByTestId(`calibration-row-${c}`);
          assert.equal((await row.getByTestId("calibration-n").textContent()).trim(), String(labelledBefore + labelled), `n of ${c} counts every label`);
          assert.match(await row.getByTestId("calibration-kappa").textContent(), /^-?\d\.\d\d \[(-?\d\.\d\d|—), (-?\d\.\d\d|—)\]$/, `kappa of ${c}, with its interval when the resamples allow one`);
          assert.equal((await row.getByTestId("calibration-badge").textContent()).trim(), WORDS[lang].advisory, `${c} is advisory with fewer than 30 labels`);
        }
        const rubricRow = page.getByTestId("calibration-row-rubric");
        assert.equal((await rubricRow.getByTestId("calibration-n").textContent()).trim(), String(rubricBefore + rubricsLabelled), "n of the rubric criterion counts every labelled rubric check");
        assert.equal((await rubricRow.getByTestId("calibration-badge").textContent()).trim(), WORDS[lang].advisory, "the rubric criterion is advisory with fewer than 30 labels");
        await page.getByTestId("judge-calibration").scrollIntoViewIfNeeded();
        await assertNothingClipped(page, `report calibration (${lang})`);
        await shot(page, `report-calibration-${lang}.png`);
      });
    }

    await t.test("the queue never carried a judge score", () => {
      assert.ok(queueBodies.length >= LANGS.length * PER_LANGUAGE, "the queue was fetched for every item");
      for (const body of queueBodies) {
        assert.ok(!/"(score|evidence|dimensions|judge_review)"/.test(body), `no judge verdict in ${body.slice(0, 200)}`);
      }
      assert.ok(runQueueBodies.length >= LANGS.length, "the run queue was fetched for every run item");
      for (const body of runQueueBodies) {
        assert.ok(!/"(score|detail|judged_by|passed|check_results)"/.test(body), `no judge score in ${body.slice(0, 200)}`);
      }
    });
    await t.test("the page raised no error", () => {
      assert.deepEqual(pageErrors, [], "the UI raised no uncaught error");
    });
  } finally {
    await close();
  }
});
