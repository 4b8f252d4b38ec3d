// A person labels the judge's sample blind in a real browser against
// `agenteval serve` on the demo data (run.sh runs `agenteval demo` first;
// its sessions are reviewed by the heuristic judge): the campaign's blind
// review queue shows a conversation and the judge's criteria but not the
// judge's scores; after submitting, the person's scores and the judge's
// are side by side; after a few labels the report shows n and kappa per
// criterion with a calibrated/advisory badge. In English and Chinese at
// 1280x800, with no clipped text.

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
const WORDS = {
  en: { advisory: "Advisory", title: "Blind review" },
  zh: { advisory: "仅供参考", title: "盲评" },
};

async function shot(page, name) {
  await page.waitForTimeout(300); // drawers finish their transition
  await page.screenshot({ path: join(SHOTS, name) });
}

test("blind labels of the judge's sample give kappa per criterion in the report", { timeout: 600_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const demo = await findCampaign(
    (r) => (r.judge_calibration?.unlabelled ?? 0) >= PLAN.length,
    `a demo campaign with at least ${PLAN.length} judged sessions nobody labelled`,
  );
  const id = demo.campaign.id;
  const labelledBefore = demo.judge_calibration.labelled;

  const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 } });
  // Every queue answer the UI receives, to check it carried no judge score.
  const queueBodies = [];
  page.on("response", async (res) => {
    if (res.url().includes("/blind-queue")) queueBodies.push(await res.text().catch(() => ""));
  });
  let labelled = 0;
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

        // Closed, the report's exploration tab: n and kappa per criterion.
        await page.keyboard.press("Escape");
        await page.waitForURL(new RegExp(`#/campaigns/${id}$`));
        await page.getByTestId("open-report").click();
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
    });
    await t.test("the page raised no error", () => {
      assert.deepEqual(pageErrors, [], "the UI raised no uncaught error");
    });
  } finally {
    await close();
  }
});
