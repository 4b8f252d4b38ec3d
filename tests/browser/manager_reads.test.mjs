// What a manager reads on a finished campaign, in both languages at
// 1280x800: backticked names shown as code, not as backticks; the judge's
// findings under their own heading with the text given the width; a
// check's type on one line; no "0 ms"; a met goal said once per session;
// charts that name their axes and their whole; a failed save of a drafted
// scenario seen beside its button, without the internal error code; and a
// campaign whose runs all errored saying so beside its progress.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { api, BASE, findCampaign, LANGS, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const WORDS = {
  en: {
    goalMet: "Goal met",
    achieved: "Goal met",
    findings: "Judge findings",
    hours: "Since the window start (hours, campaign time)",
    ring: /The whole ring is the \d+ runs that ended/,
    demoAgent: "Built-in demo agent",
    zeroMs: /(^|[^<\d.,])0 ms/,
    errored: "2 of 2 runs ended, 2 with an error",
    allErrored: "all 2 runs ended in error, so none was judged and there is no pass rate",
    why: "2 runs ended in error: target error: nothing is listening at 127.0.0.1:9.",
    sessionFailed: "nothing is listening at 127.0.0.1:9",
    onRequest: "On request",
  },
  zh: {
    goalMet: "目标达成",
    achieved: "目标达成",
    findings: "评审发现",
    hours: "窗口开始后（小时，活动时间）",
    ring: /整圈为已结束的 \d+ 次运行/,
    demoAgent: "内置演示智能体",
    zeroMs: /(^|[^<\d.,])0\s?毫秒/,
    errored: "已结束 2 / 2 次运行，其中 2 次出错",
    allErrored: "2 次运行全部出错，没有一次得到判定，因此没有通过率",
    why: "2 次运行出错：评测对象出错：127.0.0.1:9 上没有服务在监听。",
    sessionFailed: "127.0.0.1:9 上没有服务在监听",
    onRequest: "按需发起",
  },
};
/** An internal error code shown to people, e.g. "(INVALID_INPUT)". */
const CODE_IN_PARENS = /\([A-Z][A-Z_]{3,}\)/;

/** A campaign on a target nothing listens on, both of its runs ended (in error). */
async function allErrored() {
  const target = await api("/api/targets", {
    method: "POST",
    body: JSON.stringify({ name: "Nobody listens", channel: { kind: "openai", base_url: "http://127.0.0.1:9/v1", model: "none" }, max_retries: 0, timeout_ms: 1000 }),
  });
  const [a, b] = await api("/api/scenarios");
  // One campaign hour in 3.6 real seconds: both runs are due at once.
  const campaign = await api("/api/campaigns", {
    method: "POST",
    body: JSON.stringify({ name: "All runs errored", target_id: target.id, scenario_ids: [a.id, b.id], duration_hours: 1, time_scale: 1000 }),
  });
  for (let i = 0; i < 200; i++) {
    const r = await api(`/api/campaigns/${campaign.id}/report`);
    if (r.fixed.runs_planned === 2 && r.fixed.runs_finished === 2) {
      assert.equal(r.fixed.errors, 2, "both runs ended in error");
      // The template analysis (no analyst model) of a campaign whose runs all errored.
      await api(`/api/campaigns/${campaign.id}/analysis`, { method: "POST", body: "{}" });
      // A session on the same target (in a campaign whose window stays
      // open) fails on its first message.
      const open = await api("/api/campaigns", {
        method: "POST",
        body: JSON.stringify({ name: "Nobody listens, still open", target_id: target.id, scenario_ids: [a.id], duration_hours: 24 }),
      });
      const session = await api("/api/exploration/sessions", {
        method: "POST",
        body: JSON.stringify({ campaign_id: open.id, persona: "Lin", goal: "Track my order", trigger: "manual", played_by: "person" }),
      });
      campaign.openId = open.id;
      await api(`/api/exploration/sessions/${session.id}/messages`, { method: "POST", body: JSON.stringify({ content: "hello?" }), expect: 502 });
      campaign.failedSession = session.id;
      return campaign;
    }
    await new Promise((res) => setTimeout(res, 300));
  }
  assert.fail("the runs against a target nothing listens on ended");
}

test("a manager reads a finished campaign without literal markup, squeezed text or contradictions", { timeout: 300_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const demo = await findCampaign(
    (r) =>
      (r.exploration?.findings ?? []).length > 0 &&
      r.judge_calibration &&
      r.fixed.per_scenario.some((s) => s.failing_checks.some((c) => JSON.stringify(c.detail).includes("send_email"))) &&
      (r.exploration?.sessions_by_end_reason?.user_goal_met ?? 0) > 0 &&
      r.fixed.timeline.length > 1,
    "the finished demo campaign (failing checks naming a tool, judge findings, goals met, a timeline)",
  );
  const id = demo.campaign.id;
  const finding = demo.exploration.findings.find((f) => f.turn) ?? demo.exploration.findings[0];
  const errored = await allErrored();
  const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 } });
  const shot = (name) => page.screenshot({ path: join(SHOTS, name) });
  try {
    await signIn(page);
    for (const lang of LANGS) {
      const w = WORDS[lang];
      await t.test(lang, async () => {
        await setLanguage(page, lang);

        // 7. All runs errored: the progress says how they ended.
        await page.goto(`${BASE}/#/campaigns/${errored.id}`);
        const progress = page.getByTestId("runs-progress-text");
        await progress.filter({ hasText: w.errored }).waitFor();
        await shot(`manager-errored-progress-${lang}.png`);

        // 3. Its analysis says every run errored and why, not "nothing to report".
        await page.goto(`${BASE}/#/campaigns/${errored.id}/report/analysis`);
        const analysis = page.getByTestId("report-analysis");
        await analysis.waitFor();
        const read = await analysis.innerText();
        assert.ok(read.includes(w.allErrored), `the summary says all runs errored: ${read}`);
        assert.ok(read.includes(w.why), `a claim says why: ${read}`);
        await shot(`manager-errored-analysis-${lang}.png`);

        // 2. A session whose target failed says why in the reader's words.
        await page.goto(`${BASE}/#/campaigns/${errored.openId}/sessions/${errored.failedSession}`);
        const failed = page.getByTestId("session-drawer");
        await failed.getByText(w.sessionFailed, { exact: false }).first().waitFor();
        assert.doesNotMatch(await failed.innerText(), /Connection refused|os error/, "not the HTTP client's English");
        await shot(`manager-session-failed-${lang}.png`);

        // 2. Latency: the demo's built-in target answers in no measurable time; never "0 ms".
        await page.goto(`${BASE}/#/campaigns/${id}`);
        await page.getByTestId("run-row").first().waitFor();
        const runs = await page.getByTestId("runs-card").innerText();
        assert.doesNotMatch(runs, w.zeroMs, "the runs table shows no latency of 0 ms");
        assert.match(runs, /<1\s?(ms|毫秒)/, "an instant reply reads <1 ms");

        // 1, 2. Scenarios tab: a failing check names its tool as code, and its type badge is one line.
        await page.goto(`${BASE}/#/campaigns/${id}/report/scenarios`);
        const links = page.getByTestId("failed-check-link");
        await links.first().waitFor();
        const linkTexts = await links.allInnerTexts();
        assert.ok(linkTexts.every((x) => !x.includes("`")), `no literal backticks: ${linkTexts.filter((x) => x.includes("`"))}`);
        assert.ok((await links.locator("code", { hasText: "send_email" }).count()) > 0, "the tool's name is shown as code");
        const badges = page.getByRole("dialog").getByTestId("check-kind");
        for (const box of await badges.evaluateAll((els) => els.map((e) => ({ h: e.getBoundingClientRect().height, text: e.textContent })))) {
          assert.ok(box.h < 26, `the check type "${box.text}" stays on one line (${box.h}px high)`);
        }
        const [table, drawer] = await Promise.all([page.getByTestId("report-scenarios").boundingBox(), page.getByRole("dialog").boundingBox()]);
        assert.ok(table && drawer && table.x + table.width <= drawer.x + drawer.width + 1, "the scenarios table fits the drawer, one-line badges and all");
        await links.locator("code", { hasText: "send_email" }).first().scrollIntoViewIfNeeded();
        await shot(`manager-failing-checks-${lang}.png`);

        // 5. Scores: the built-in demo agent by its name.
        await page.goto(`${BASE}/#/campaigns/${id}/report/scores`);
        await page.getByTestId("report-pass-rate").waitFor();
        const scores = await page.getByRole("dialog").innerText();
        assert.ok(scores.includes(w.demoAgent) && !scores.includes("builtin:demo"), "the target's model read as the built-in demo agent");
        assert.doesNotMatch(scores, w.zeroMs, "no p50 of 0 ms");

        // 4. Charts: the verdict ring says what its whole is; the line names its axis, on round ticks.
        await page.goto(`${BASE}/#/campaigns/${id}/report/charts`);
        const legend = page.getByTestId("verdict-legend");
        await legend.waitFor();
        assert.match(await legend.innerText(), w.ring);
        const timeline = page.getByTestId("chart-timeline");
        await timeline.scrollIntoViewIfNeeded();
        await timeline.getByText(w.hours).waitFor();
        // The y axis's ticks carry "%"; the others are the x axis's.
        const ticks = (await timeline.locator(".recharts-cartesian-axis-tick-value").allTextContents()).filter((x) => !x.includes("%"));
        assert.ok(ticks.length >= 2 && ticks.every((x) => /^\d+$/.test(x.trim())), `whole hours on the x axis: ${ticks}`);
        await page.waitForTimeout(1600); // the ring grows into place before the picture
        await shot(`manager-charts-${lang}.png`);

        // 1, 2, 3. Exploration: findings under their heading, text given the width; a met goal said once.
        await page.goto(`${BASE}/#/campaigns/${id}/report/exploration`);
        const findings = page.getByTestId("judge-findings");
        await findings.waitFor();
        const title = findings.getByTestId("judge-findings-title");
        assert.match(await title.innerText(), new RegExp(w.findings));
        const calibration = await page.getByTestId("judge-calibration").boundingBox();
        const heading = await title.boundingBox();
        assert.ok(calibration && heading && heading.y >= calibration.y + calibration.height, "the heading sits between the calibration block and the findings");
        const rows = await findings.getByTestId("judge-finding").evaluateAll((els) =>
          els.map((e) => {
            const row = e.getBoundingClientRect().width;
            const text = e.querySelector('[data-testid="judge-finding-text"]')?.getBoundingClientRect().width ?? 0;
            const link = e.querySelector('[data-testid="finding-link"]')?.getBoundingClientRect().width ?? 0;
            return { row, text, link, says: (e.textContent ?? "").slice(0, 40) };
          }),
        );
        for (const r of rows) {
          assert.ok(r.text > r.link && r.text >= r.row * 0.5, `the finding's text has the width: ${JSON.stringify(r)}`);
        }
        const drawerText = await page.getByRole("dialog").innerText();
        assert.ok(!drawerText.includes("`"), "no literal backticks on the exploration tab");
        const ends = await page.getByTestId("report-session-row").evaluateAll((els) => els.map((e) => e.innerText));
        // 8. The built-in user's sessions were started on request, not by a person's hand.
        assert.ok(ends.some((x) => x.includes(w.onRequest)), `a session row says how it was started: ${ends[0]}`);
        const met = ends.filter((x) => x.includes(w.goalMet));
        assert.ok(met.length > 0, "a session whose goal was met is listed");
        for (const x of met) {
          const said = x.toLowerCase().split(w.achieved.toLowerCase()).length - 1;
          assert.equal(said, 1, `"${w.achieved}" said once in the row: ${x}`);
        }
        await title.scrollIntoViewIfNeeded();
        await shot(`manager-findings-${lang}.png`);

        // 2. A session's replies: no "· 0 ms".
        await page.goto(`${BASE}/#/campaigns/${id}/sessions/${finding.session_id}`);
        const conversation = page.getByTestId("session-conversation");
        await conversation.getByTestId("turn").or(conversation.getByTestId("turn-highlighted")).first().waitFor();
        assert.doesNotMatch(await conversation.innerText(), w.zeroMs, "replies show no latency of 0 ms");

        // 1. The built-in virtual user's record of an English persona reads
        // in the reader's language: its blockers and notes are the
        // product's sentences (names of the persona and goal aside).
        const sessions = await api(`/api/exploration/campaigns/${id}/sessions`);
        const english = sessions.find((s) => s.persona?.language === "en" && s.played_by === "builtin" && (s.experience?.blockers ?? []).length > 0);
        assert.ok(english, "the demo has an English persona's session with blockers");
        await page.goto(`${BASE}/#/campaigns/${id}/sessions/${english.id}`);
        const record = page.getByTestId("session-experience");
        await record.waitFor();
        let recorded = await record.innerText();
        for (const name of [english.persona.name, english.goal.title]) recorded = recorded.split(name).join(" ");
        if (lang === "zh") {
          assert.match(recorded, /\p{Script=Han}/u, "the record is Chinese");
          assert.deepEqual(recorded.match(/[A-Za-z]{3,}/g) ?? [], [], `no English in the Chinese record: ${recorded}`);
        } else {
          assert.doesNotMatch(recorded, /\p{Script=Han}/u, `no Chinese in the English record: ${recorded}`);
        }
        await shot(`manager-record-${lang}.png`);

        // 6. A drafted scenario edited into something invalid: the error is seen, without its code.
        const make = page.getByTestId("make-regression").first();
        await make.scrollIntoViewIfNeeded();
        await make.click();
        const modal = page.getByTestId("regression-modal");
        const yaml = modal.getByTestId("regression-yaml");
        await yaml.waitFor();
        // The whole draft stays (a long one puts the save button below the fold); its id is broken.
        const drafted = await yaml.inputValue();
        await yaml.fill(drafted.replace(/- id: .*/, "- id: [not, an, id"));
        await modal.getByTestId("regression-save").click();
        const alert = modal.getByTestId("error-alert");
        await alert.waitFor();
        await page.waitForTimeout(200); // scrolled into view
        const box = await alert.boundingBox();
        const viewport = page.viewportSize();
        assert.ok(box && viewport && box.y >= 0 && box.y + box.height <= viewport.height, `the error is within the visible window: ${JSON.stringify(box)}`);
        const said = await alert.innerText();
        assert.doesNotMatch(said, CODE_IN_PARENS, `no internal code shown: ${said}`);
        assert.equal(await alert.getAttribute("data-code"), "INVALID_INPUT", "the code stays for programs");
        await shot(`manager-regression-error-${lang}.png`);
        await page.keyboard.press("Escape");
        await modal.waitFor({ state: "hidden" });
      });
    }
    assert.deepEqual(pageErrors, [], "the page raised no error");
  } finally {
    await close();
    // Ended, so that the tests after this one meet no running campaign of it.
    await api(`/api/campaigns/${errored.id}/finalize`, { method: "POST", body: "{}" }).catch(() => undefined);
  }
});
