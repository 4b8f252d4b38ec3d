// The office benchmark's tasks per difficulty group as a chart, in the
// report's Charts tab, in both languages at 1280x800: the figure with its
// title, its drawing (bars for completion and key-field coverage, and for
// the steps per task) and its table, one row per group whose figures are
// the report's own (`fixed.per_group_tasks`). The group names are the
// reader's (basic → 基础), the Chinese figure holds no English word and
// nothing is cut off; its table's toggle reads at 4.5:1 under the pointer;
// with reduced motion the bars are drawn at once.
// Screenshots go to docs/screenshots/.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, LANGS, assertNothingClipped, audit, describeViolations, findCampaign, hoverContrast, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));

const WORDS = {
  en: {
    title: "Tasks per difficulty group",
    columns: ["Group", "Runs", "Task completion", "Key-field coverage", "Steps per task"],
    groups: { basic: "basic", intermediate: "intermediate", advanced: "advanced" },
  },
  zh: {
    title: "各难度组的任务指标",
    columns: ["难度组", "运行", "任务完成率", "关键字段覆盖率", "平均步数"],
    groups: { basic: "基础", intermediate: "进阶", advanced: "高级" },
  },
};

/** A shown figure as a number: "80.0%" → 80, "1,234" → 1234, "—" → null. */
function figure(text) {
  const s = text.trim();
  if (s === "—") return null;
  const n = Number(s.replace(/[,\s%]/g, ""));
  assert.ok(Number.isFinite(n), `a figure: "${s}"`);
  return n;
}

/** `shown` is `want` as the table rounds it (one decimal), or both are none. */
function same(shown, want, where) {
  if (want == null) return assert.equal(shown, null, `${where}: no figure, shown as —`);
  assert.ok(shown != null && Math.abs(shown - want) <= 0.051, `${where}: shown ${shown}, the report says ${want}`);
}

test("the tasks per difficulty group as a chart, in both languages", { timeout: 180_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const report = await findCampaign((r) => (r.fixed.per_group_tasks ?? []).length > 0, "a campaign with the office pack's runs");
  const groups = report.fixed.per_group_tasks;
  const url = `${BASE}/#/campaigns/${report.campaign.id}/report/charts`;

  const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
  try {
    await signIn(page);
    for (const lang of LANGS) {
      await t.test(lang, async () => {
        const w = WORDS[lang];
        await page.goto(url);
        await setLanguage(page, lang);
        const figureEl = page.getByTestId("chart-tasks");
        await figureEl.waitFor();
        assert.equal((await figureEl.locator("figcaption").textContent()).trim(), w.title);

        // Drawn: two bars per group for the rates (those with a figure), one for the steps.
        const summary = figureEl.getByTestId("chart-summary");
        const label = await summary.getAttribute("aria-label");
        for (const g of groups) assert.ok(label.includes(w.groups[g.group] ?? g.group), `the summary names ${g.group}: ${label}`);
        const drawn = groups.reduce((n, g) => n + [g.completion_rate, g.key_field_coverage, g.steps_mean].filter((v) => v != null && v > 0).length, 0);
        await page.waitForFunction(
          ([id, n]) => document.querySelectorAll(`[data-testid="${id}"] .recharts-bar-rectangle path`).length >= n,
          ["chart-tasks", drawn],
        );
        const names = groups.map((g) => w.groups[g.group] ?? g.group);
        const tickLabels = figureEl.locator(".recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value");
        await tickLabels.nth(2 * names.length - 1).waitFor();
        const ticks = await tickLabels.allTextContents();
        assert.deepEqual(ticks, [...names, ...names], "each chart names every group on its axis");

        // Its table: one row per group, the report's figures.
        await figureEl.getByTestId("chart-table-toggle").click();
        const table = figureEl.getByTestId("chart-table");
        await table.waitFor();
        assert.deepEqual((await table.locator("th").allTextContents()).map((s) => s.trim()), w.columns);
        const rows = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? "")));
        assert.equal(rows.length, groups.length, "one row per group");
        groups.forEach((g, i) => {
          const [name, runs, completion, keyFields, steps] = rows[i];
          assert.equal(name.trim(), w.groups[g.group] ?? g.group, "the group's name in the reader's language");
          assert.equal(figure(runs), g.runs, `${g.group}: runs`);
          same(figure(completion), g.completion_rate == null ? null : g.completion_rate * 100, `${g.group}: completion`);
          same(figure(keyFields), g.key_field_coverage == null ? null : g.key_field_coverage * 100, `${g.group}: key-field coverage`);
          same(figure(steps), g.steps_mean, `${g.group}: steps per task`);
        });

        if (lang === "zh") {
          const text = await figureEl.evaluate((el) => el.innerText);
          assert.deepEqual(text.match(/[A-Za-z]{2,}/g) ?? [], [], `the Chinese figure holds no English word:\n${text}`);
        }
        await assertNothingClipped(page, `the tasks chart (${lang})`);
        // The pointer off the toggle: its hover shade is no state the page rests in.
        await page.mouse.move(0, 0);
        const violations = await audit(page);
        assert.deepEqual(violations, [], `axe-core on the tasks chart (${lang}):\n${describeViolations(violations)}`);

        // The drawing and its table in view, as a reader sees them.
        // (Its caption below the drawer's header, which stays at the top.)
        await figureEl.evaluate((el) => {
          el.style.scrollMarginTop = "72px";
          el.scrollIntoView({ block: "start" });
        });
        await page.waitForTimeout(400);
        await page.screenshot({ path: join(SHOTS, `tasks-chart-${lang}.png`) });
        await figureEl.getByTestId("chart-table-toggle").click();
        await table.waitFor({ state: "detached" });
        // Its toggle still reads under the pointer (its tint is darker than white).
        const hovered = await hoverContrast(figureEl.getByTestId("chart-table-toggle"));
        assert.ok(hovered.ratio >= 4.5, `the hovered toggle reads at ${hovered.ratio.toFixed(2)}:1 (${hovered.color} on ${hovered.background})`);
      });
    }
    await t.test("drawn at once when the system asks for reduced motion", async () => {
      await page.emulateMedia({ reducedMotion: "reduce" });
      await page.goto(url);
      await page.reload();
      const bar = page.getByTestId("chart-tasks").locator(".recharts-bar-rectangle path").first();
      await bar.waitFor();
      const first = await bar.getAttribute("d");
      await page.waitForTimeout(1500);
      assert.equal(await bar.getAttribute("d"), first, "the bars do not grow into place");
      await page.emulateMedia({ reducedMotion: "no-preference" });
    });
    assert.deepEqual(pageErrors, []);
  } finally {
    await close();
  }
});
