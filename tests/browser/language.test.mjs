// The report reads in the reader's language. In a real browser against
// `agenteval serve` on the demo data (run.sh runs `agenteval demo` into the
// served folder first), in Chinese: the analysis (regenerated), the
// period comparison (a next period of the demo campaign, run to its end),
// the exploration findings, a failed check and a target's connection
// error hold no English sentence outside quoted agent text and the data's
// own names (scenario titles, personas, goals); in English, no Chinese
// outside them. Screenshots of each screen in both languages go to
// docs/screenshots/.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, api, findCampaign, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));

// Words that are the same in both languages: formats, units, the
// product's names for things it shows as code.
const SAME_IN_BOTH = new Set(["JSON", "CSV", "Markdown", "JUnit", "API", "URL", "HTTP", "ms", "pass", "AgentEval", "kappa", "OpenAI", "YAML", "UTC", "p50", "p95", "ID", "id", "demo", "heuristic", "template", "Wilson"]);

/** The data's own words, shown as they were written: removed before the check. */
async function dataWords() {
  const words = new Set();
  for (const s of await api("/api/scenarios")) words.add(s.title).add(s.id).add(s.pack);
  for (const c of await api("/api/campaigns")) {
    words.add(c.name);
    for (const p of c.seed_set?.personas ?? []) words.add(p.name).add(p.id);
    for (const g of c.seed_set?.goals ?? []) words.add(g.title).add(g.id);
  }
  for (const t of await api("/api/targets?include_archived=true")) words.add(t.name);
  words.delete(undefined);
  words.delete("");
  // Longest first, so that a title is removed before a word inside it.
  return [...words].sort((a, b) => b.length - a.length);
}

/** What is left of `text` once quotations, code, ids, figures and the data's own words are removed. */
function unquoted(text, data) {
  let s = text;
  for (const w of data) s = s.split(w).join(" ");
  return s
    .replace(/“[^”]*”|"[^"]*"|「[^」]*」|‘[^’]*’|`[^`]*`/g, " ")
    .replace(/[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}/gi, " ")
    .replace(/\b[0-9a-f]{6,}\b/gi, " ")
    .replace(/https?:\/\/\S+|\b\d+(\.\d+)*(:\d+)?\b/g, " ");
}

function englishWords(text, data) {
  return (unquoted(text, data).match(/[A-Za-z][A-Za-z'-]+/g) ?? []).filter((w) => !SAME_IN_BOTH.has(w));
}

function chineseChars(text, data) {
  return unquoted(text, data).match(/\p{Script=Han}+/gu) ?? [];
}

function assertInLanguage(lang, where, text, data) {
  assert.ok(text.trim().length > 0, `${where} shows something`);
  if (lang === "zh") {
    const words = englishWords(text, data);
    assert.deepEqual(words, [], `${where} in Chinese has no English outside quotes: ${words.join(" ")}\n---\n${text}`);
  } else {
    const han = chineseChars(text, data);
    assert.deepEqual(han, [], `${where} in English has no Chinese outside quotes: ${han.join(" ")}\n---\n${text}`);
  }
}

/** What a locator shows, its code spans (names shown as code) marked with backticks as the catalogue writes them. */
async function shown(locator) {
  const { text, codes } = await locator.evaluate((el) => ({
    text: el instanceof HTMLElement ? el.innerText : (el.textContent ?? ""),
    codes: [...el.querySelectorAll("code")].map((c) => c.textContent ?? "").filter(Boolean),
  }));
  return [...new Set(codes)].sort((a, b) => b.length - a.length).reduce((t, c) => t.split(c).join(`\`${c}\``), text);
}

async function shot(page, name) {
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SHOTS, name) });
}

/** The served port's neighbour nobody listens on. */
function deadUrl() {
  const port = Number(new URL(BASE).port);
  return `http://127.0.0.1:${port === 1 ? 2 : port - 1}/v1`;
}

test("the report reads in the reader's language", { timeout: 600_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const demo = await findCampaign((r) => (r.exploration?.issues?.length ?? 0) > 0 && r.fixed.failed > 0, "the finished demo campaign");

  // The next period, run to its end: a comparison with figures on both sides.
  const next = await api(`/api/campaigns/${demo.campaign.id}/next-period`, { method: "POST" });
  for (let i = 0; i < 240; i++) {
    const c = await api(`/api/campaigns/${next.id}`);
    if (c.status === "finalized") break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const report = await api(`/api/campaigns/${next.id}/report?lang=zh`);
  assert.ok(report.comparison?.periods?.length > 0, "the next period is compared with the demo campaign");

  // A target nobody answers, for its connection error.
  const dead = await api("/api/targets", {
    method: "POST",
    body: JSON.stringify({ name: "Unreachable agent", channel: { kind: "openai", base_url: deadUrl(), model: "m" }, max_retries: 0 }),
  });

  const data = await dataWords();
  const { page, pageErrors, close } = await launch();
  try {
    await signIn(page);
    for (const lang of ["zh", "en"]) {
      await t.test(`[${lang}] analysis, comparison, findings, a failed check, a target error`, async () => {
        await page.goto(`${BASE}/#/campaigns/${next.id}/report/analysis`);
        await setLanguage(page, lang);
        await page.getByTestId("generate-analysis").click();
        const analysis = page.getByTestId("report-analysis");
        await analysis.waitFor();
        await shot(page, `report-analysis-${lang}.png`);
        assertInLanguage(lang, "the analysis", await shown(analysis), data);

        await page.goto(`${BASE}/#/campaigns/${next.id}/report/comparison`);
        const comparison = page.getByTestId("comparison");
        await page.getByTestId("comparison-scenarios").waitFor();
        await shot(page, `report-comparison-${lang}.png`);
        assertInLanguage(lang, "the comparison", await shown(comparison), data);

        await page.goto(`${BASE}/#/campaigns/${demo.campaign.id}/report/exploration`);
        const findings = page.getByTestId("exploration-findings");
        await findings.waitFor();
        await page.getByTestId("issue-list").waitFor();
        await shot(page, `report-findings-${lang}.png`);
        assertInLanguage(lang, "the issues", await shown(page.getByTestId("issue-list")), data);
        assertInLanguage(lang, "the judge findings", await shown(page.getByTestId("judge-findings")), data);
        const judgeStatus = await page.getByTestId("judge-status").innerText();
        assertInLanguage(lang, "the judge's status", judgeStatus, data);
        assert.match(judgeStatus, lang === "zh" ? /评审已复核 [1-9]\d* 个会话/ : /[1-9]\d* sessions? reviewed by the judge/, judgeStatus);

        await page.goto(`${BASE}/#/campaigns/${demo.campaign.id}/report/scenarios`);
        await page.getByTestId("report-scenarios").waitFor();
        const rate = await page.getByTestId("scenario-pass-rate").first().innerText();
        assert.match(rate, /%\s+[\d.]+%–[\d.]+%/, `a scenario's pass rate with its interval: ${rate}`);
        await shot(page, `report-scenarios-${lang}.png`);
        await page.getByTestId("failed-check-link").first().click();
        await page.getByTestId("run-drawer").getByTestId("check-failed").first().waitFor();
        await shot(page, `run-failed-check-${lang}.png`);
        assertInLanguage(lang, "a failed check", await shown(page.getByTestId("run-checks")), data);

        await page.goto(`${BASE}/#/targets`);
        const row = page.getByTestId("target-row").filter({ hasText: dead.name });
        await row.getByTestId("target-test").click();
        const probe = page.getByTestId("target-probe");
        await probe.waitFor();
        await shot(page, `target-error-${lang}.png`);
        assertInLanguage(lang, "a target's connection error", await shown(probe), data);
      });
    }
    assert.deepEqual(pageErrors, [], "no script error");
  } finally {
    await close();
  }
});
