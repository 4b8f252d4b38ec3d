// An engineer sets up and explores in a real browser against `agenteval
// serve` (started by run.sh), once in English and once in Chinese: targets
// (create with the connection test, edit, delete, a failed test in words),
// a campaign with out-of-range numbers refused inline and an empty one
// refused, a full seed set imported from a YAML file, a plan with rounds;
// the virtual user explores a cell while its turns arrive; a manual
// session is played, left open, resumed from its drawer and closed with a
// record; a further session is refused with its reason in words.
// Screenshots of the form, the explore modal and the targets page go to
// docs/screenshots/ at 1280x800.

import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, KEY, LANGS, api, launch } from "./helpers.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SHOTS = join(ROOT, "docs", "screenshots");

/** The words each language shows, so that the walk checks what a reader reads. */
const WORDS = {
  en: {
    switch: "English",
    rangeHours: /more than 0 and at most 8[,.\s]?760/,
    rangeScale: /more than 1 and at most 10[,.\s]?000/,
    rangeSessions: /between 1 and 1[,.\s]?000/,
    rangeConcurrency: /between 1 and 1[,.\s]?024/,
    empty: /nothing to evaluate/,
    runsPlanned: /Runs planned: 3\./,
    you: "You",
    target: "Target",
    virtualUser: "Virtual user",
    turn1: "Turn 1 of 12",
    budgetRefused: /used all 2 sessions/,
    budgetTitle: "Session budget used up",
    probeFailed: "No answer",
    created: /was created/,
    archivedOrDeleted: /was deleted/,
    builtin: /built-in persona engine/,
    emotion: "Frustrated",
    endingMet: "Goal met",
  },
  zh: {
    switch: "中文",
    rangeHours: /大于 0 且不超过 8[,.\s]?760/,
    rangeScale: /大于 1 且不超过 10[,.\s]?000/,
    rangeSessions: /1 到 1[,.\s]?000 之间/,
    rangeConcurrency: /1 到 1[,.\s]?024 之间/,
    empty: /没有可评测的内容/,
    runsPlanned: /计划运行：3 次。/,
    you: "你",
    target: "评测对象",
    virtualUser: "虚拟用户",
    turn1: "第 1 / 12 轮",
    budgetRefused: /已用完预算允许的全部 2 个会话/,
    budgetTitle: "会话预算已用完",
    probeFailed: "无响应",
    created: /已创建/,
    archivedOrDeleted: /已删除/,
    builtin: /内置人设引擎/,
    emotion: "沮丧",
    endingMet: "目标达成",
  },
};

/** A full seed set as an external assistant might write it, with a field the editor does not know. */
function seedYaml(lang) {
  return `# seed set written by hand
personas:
  - id: busy-${lang}
    name: ${lang === "zh" ? "忙碌的经理" : "Busy manager"}
    description: Writes short messages and expects action.
    traits: [impatient, decisive]
    style: terse
    patience: 2
    language: ${lang}
    technical_level: 3
    change_mind: 0.2
    favourite_colour: teal
goals:
  - id: weekly-report
    title: ${lang === "zh" ? "把周报发给经理" : "Send the weekly report to my manager"}
    description: Email boss@example.com with the subject Weekly report.
    success_criteria:
      - sent
    slots:
      to: boss@example.com
      subject: Weekly report
`;
}

/** Picks an option of a Mantine Select by its visible label. */
async function choose(page, testId, label) {
  await page.getByTestId(testId).click();
  await page.getByRole("option", { name: label }).first().click();
}

/** The error text Mantine shows under a field. */
function fieldError(page, testId) {
  return page.locator(".mantine-InputWrapper-root", { has: page.getByTestId(testId) }).locator(".mantine-InputWrapper-error");
}

test("campaign setup and exploration in a real browser, in both languages", { timeout: 600_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const work = process.env.AGENTEVAL_TMP ?? (await mkdtemp(join(tmpdir(), "agenteval-setup-")));
  const { page, pageErrors, close } = await launch();
  try {
    await page.goto(`${BASE}/?key=${encodeURIComponent(KEY)}`);
    await page.getByTestId("nav-campaigns").waitFor();

    for (const lang of LANGS) {
      const w = WORDS[lang];
      const targetName = `Demo ${lang}`;
      const campaignName = `Setup walk ${lang}`;

      await t.test(`${lang}: the language switches`, async () => {
        await page.getByTestId("language-switch").getByText(w.switch).click();
        await page.waitForFunction((l) => document.documentElement.lang === l, lang);
      });

      await t.test(`${lang}: targets are created with a connection test, edited and deleted`, async () => {
        await page.getByTestId("nav-targets").click();
        const form = page.getByTestId("new-target");
        // A working target: created, and the test it runs at once passes.
        await form.getByTestId("target-kind").locator("label").nth(2).click();
        await form.getByTestId("target-name").fill(targetName);
        await form.getByTestId("target-concurrency").fill("0");
        await form.getByTestId("target-submit").click();
        assert.match((await fieldError(page, "target-concurrency").textContent()) ?? "", w.rangeConcurrency, "concurrency 0 is refused at the field with its range, not changed to 1");
        await form.getByTestId("target-concurrency").fill("2");
        await form.getByTestId("target-submit").click();
        await page.getByTestId("target-notice").filter({ hasText: w.created }).waitFor();
        await page.getByTestId("target-row").filter({ hasText: targetName }).waitFor();

        // An HTTP JSON target where nothing listens: created, with a warning in words.
        await form.getByTestId("target-kind").locator("label").nth(1).click();
        await form.getByTestId("target-name").fill(`Offline ${lang}`);
        await form.getByTestId("target-url").fill("http://127.0.0.1:9/chat");
        await form.getByTestId("target-template").fill('{"input": "{{message}}"}');
        await form.getByTestId("target-response-path").fill("$.output");
        await form.getByTestId("target-submit").click();
        const warning = page.getByTestId("target-notice").filter({ hasText: `Offline ${lang}` });
        await warning.getByTestId("target-probe").waitFor();
        const text = (await warning.textContent()) ?? "";
        assert.ok(text.includes(w.probeFailed), `the failed connection test is said in the notice: ${text}`);
        assert.ok(!/os error|tcp connect error/i.test(text), `the failure is in words, not a raw socket error: ${text}`);
        const offline = page.getByTestId("target-row").filter({ hasText: `Offline ${lang}` });
        await offline.waitFor();

        // The table keeps its shape: the endpoint column is not squashed by the message.
        await offline.getByTestId("target-test").click();
        await page.getByTestId("target-probe-row").first().waitFor();
        const widths = await page.getByTestId("target-table").evaluate((table) => [...table.querySelectorAll("thead th")].map((th) => th.getBoundingClientRect().width));
        assert.ok(widths[2] > 150, `the endpoint column keeps its width (${widths.join(", ")})`);

        // Edit: the request template and response path come back in the form.
        await offline.getByTestId("target-edit").click();
        const modal = page.getByTestId("target-edit-modal");
        assert.equal(await modal.getByTestId("target-response-path").inputValue(), "$.output", "the response path is kept");
        assert.match(await modal.getByTestId("target-template").inputValue(), /"input"/, "the request template is kept");
        await modal.getByTestId("target-name").fill(`Offline ${lang} (edited)`);
        await modal.getByTestId("target-submit").click();
        await modal.waitFor({ state: "detached" });
        const edited = page.getByTestId("target-row").filter({ hasText: `Offline ${lang} (edited)` });
        await edited.waitFor();

        await page.screenshot({ path: join(SHOTS, `targets-${lang}.png`) });

        // Delete: no campaign uses it, so it is deleted.
        await edited.getByTestId("target-delete").click();
        await page.getByTestId("target-delete-confirm").click();
        await page.getByTestId("target-notice").filter({ hasText: w.archivedOrDeleted }).waitFor();
        await edited.waitFor({ state: "detached" });
      });

      await t.test(`${lang}: the campaign form refuses out-of-range numbers and an empty campaign`, async () => {
        await page.getByTestId("nav-campaigns").click();
        await page.getByTestId("new-campaign").click();
        const form = page.getByTestId("campaign-form");
        await form.getByTestId("campaign-name").fill(campaignName);
        await choose(page, "campaign-target", targetName);
        await form.getByTestId("campaign-hours").fill("-5");
        await form.getByTestId("campaign-scale").fill("0");
        await form.getByTestId("budget-max-sessions").fill("-1");
        await form.getByTestId("campaign-submit").click();
        assert.match((await fieldError(page, "campaign-hours").textContent()) ?? "", w.rangeHours, "a window of -5 h is refused with its range");
        assert.match((await fieldError(page, "campaign-scale").textContent()) ?? "", w.rangeScale, "time scale 0 is refused with its range");
        assert.match((await fieldError(page, "budget-max-sessions").textContent()) ?? "", w.rangeSessions, "max sessions -1 is refused with its range");
        assert.equal(await form.getByTestId("campaign-hours").inputValue(), "-5", "what was typed is never changed");
        assert.equal(await form.getByTestId("campaign-scale").inputValue(), "0", "what was typed is never changed");
        assert.match((await form.getByTestId("campaign-empty").textContent()) ?? "", w.empty, "an empty campaign says what to add");
        assert.equal(await form.count(), 1, "nothing was created");

        await form.getByTestId("campaign-hours").fill("2");
        await form.getByTestId("campaign-scale").fill("120");
        await form.getByTestId("budget-max-sessions").fill("2");
        await form.getByTestId("budget-min-interval").fill("0");
        await form.getByTestId("campaign-hours").click();
        assert.equal(await fieldError(page, "campaign-hours").count(), 0, "a valid window shows no error");
      });

      await t.test(`${lang}: a full seed set is imported from a YAML file and a plan with rounds is shown`, async () => {
        const form = page.getByTestId("campaign-form");
        const file = join(work, `seeds-${lang}.yaml`);
        await writeFile(file, seedYaml(lang));
        await form.getByTestId("seed-import-input").setInputFiles(file);
        await form.getByTestId("seed-imported").waitFor();
        assert.equal(await form.getByTestId("persona-card").count(), 1, "the persona was imported");
        assert.equal(await form.getByTestId("goal-card").count(), 1, "the goal was imported");
        assert.equal(await form.getByTestId("persona-style").inputValue(), "terse");
        assert.equal(await form.getByTestId("persona-patience").inputValue(), "2");
        assert.equal(await form.getByTestId("persona-change-mind").inputValue(), "0.2");
        assert.match((await form.getByTestId("persona-card").textContent()) ?? "", /impatient/, "traits are shown as tags");
        assert.match((await form.getByTestId("seed-extra").first().textContent()) ?? "", /favourite_colour/, "an unknown field is kept and shown");
        assert.equal(await form.getByTestId("slot-key").count(), 2, "the goal's facts are key/value rows");

        // An out-of-range persona field is refused at the field.
        await form.getByTestId("persona-patience").fill("9");
        assert.match((await fieldError(page, "persona-patience").textContent()) ?? "", lang === "zh" ? /1 到 5/ : /between 1 and 5/);
        await form.getByTestId("persona-patience").fill("2");

        // One scenario, three rounds: the plan shows its runs before submit.
        await form.getByTestId("scenario-option").first().check();
        const row = form.getByTestId("plan-row").first();
        await row.getByTestId("plan-mode").locator("label").nth(1).click();
        await row.getByTestId("plan-rounds").fill("3");
        await form.getByTestId("plan-summary").filter({ hasText: w.runsPlanned }).waitFor();
        assert.match((await form.getByTestId("plan-summary").textContent()) ?? "", /1\s?(min|分钟)/, "the real duration (2 h / 120) is shown");

        await form.getByTestId("campaign-name").scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, `campaign-form-${lang}.png`) });
        await form.getByTestId("seed-editor").scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, `campaign-form-seeds-${lang}.png`) });

        await form.getByTestId("campaign-submit").click();
        await page.getByTestId("campaign-title").filter({ hasText: campaignName }).waitFor();
        const list = await api("/api/campaigns");
        const created = list.find((c) => c.name === campaignName);
        assert.ok(created, "the campaign exists");
        assert.equal(created.plan.entries[0].rounds, 3, "the plan carries the rounds");
        const persona = created.seed_set.personas[0];
        assert.equal(persona.technical_level, 3, "every persona field reaches the engine");
        assert.deepEqual(persona.traits, ["impatient", "decisive"]);
        assert.equal(created.seed_set.goals[0].slots.to, "boss@example.com", "the goal's facts reach the engine");
      });

      await t.test(`${lang}: the virtual user explores a cell and its turns arrive`, async () => {
        await page.getByTestId("open-explore").click();
        const modal = page.getByTestId("explore-modal");
        await modal.getByTestId("virtual-user-player").filter({ hasText: w.builtin }).waitFor();
        await page.screenshot({ path: join(SHOTS, `explore-modal-${lang}.png`) });
        await modal.getByTestId("explore-cell").click();
        const live = modal.getByTestId("live-session").first();
        await live.waitFor();
        await live.getByTestId("live-turn").first().waitFor({ timeout: 60_000 });
        await modal.locator('[data-testid="live-session"][data-status="completed"]').first().waitFor({ timeout: 90_000 });
        const roles = await live.getByTestId("live-turn").evaluateAll((els) => els.map((e) => e.getAttribute("data-role")));
        assert.ok(roles.length >= 2 && roles.includes("user") && roles.includes("target"), "both sides of the conversation arrived");
        assert.match((await live.textContent()) ?? "", new RegExp(w.virtualUser), "the virtual user's turns are labelled");
        await page.screenshot({ path: join(SHOTS, `explore-live-${lang}.png`) });
      });

      let sessionId = "";
      await t.test(`${lang}: a manual session is played and left open when the window closes`, async () => {
        const modal = page.getByTestId("explore-modal");
        await modal.getByTestId("explore-tab-person").click();
        await modal.getByTestId("explore-start").click();
        const session = modal.getByTestId("manual-session");
        await session.waitFor();
        sessionId = (await session.getAttribute("data-session-id")) ?? "";
        const box = session.getByTestId("manual-message");
        await box.fill(lang === "zh" ? "请把周报发给 boss@example.com" : "Please send the weekly report to boss@example.com");
        await box.press("Shift+Enter");
        await box.type(lang === "zh" ? "谢谢" : "thanks");
        assert.match(await box.inputValue(), /\n/, "Shift+Enter starts a new line instead of sending");
        await box.press("Enter");
        await session.locator('[data-testid="manual-turn"][data-role="target"]').first().waitFor();
        assert.equal(await box.inputValue(), "", "Enter sent the message");
        assert.equal((await session.locator('[data-testid="manual-turn"][data-role="user"]').first().textContent())?.startsWith(w.you), true, "the person's turns are labelled as theirs");
        assert.equal((await session.locator('[data-testid="manual-turn"][data-role="target"]').first().textContent())?.startsWith(w.target), true, "the target's turns are labelled");
        assert.equal(await session.getByTestId("turn-counter").textContent(), w.turn1, "the turn counter counts against the budget");
        await page.screenshot({ path: join(SHOTS, `explore-manual-${lang}.png`) });

        await page.keyboard.press("Escape");
        await page.getByTestId("exit-confirm").getByTestId("exit-keep-open").click();
        await modal.waitFor({ state: "detached" });
        const s = await api(`/api/exploration/sessions/${sessionId}`);
        assert.equal(s.status, "running", "the session was kept open");
        assert.equal(s.played_by ?? "person", "person", "a person played it");
      });

      await t.test(`${lang}: the session is resumed from its drawer and closed with a record`, async () => {
        await page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`).first().click();
        const drawer = page.getByTestId("session-drawer");
        await drawer.getByTestId("session-resume").click();
        const modal = page.getByTestId("explore-modal");
        const session = modal.getByTestId("manual-session");
        await session.locator('[data-testid="manual-turn"][data-role="target"]').first().waitFor();
        assert.equal(await session.getByTestId("turn-counter").textContent(), w.turn1, "the conversation resumes where it stopped");
        await choose(page, "record-ending", w.endingMet);
        await session.getByTestId("record-misled").fill(lang === "zh" ? "说已发送但没有确认收件人" : "said it was sent without confirming the recipient");
        await choose(page, "record-emotion", w.emotion);
        await session.getByTestId("manual-close").click();
        await modal.waitFor({ state: "detached" });
        const s = await api(`/api/exploration/sessions/${sessionId}`);
        assert.equal(s.status, "completed", "the session was closed");
        assert.equal(s.experience.goal_achieved, true, "the record was stored");
        assert.equal(s.end_reason, "user_goal_met", "the ending the person chose");
        assert.deepEqual(s.simulator_faults, [], "a person is never a simulator fault");
        assert.equal(s.experience.emotion, "frustrated", "the chosen emotion was stored");
        assert.equal(s.experience.misled.length, 1, "the misled point was stored");
        await page.keyboard.press("Escape");
      });

      await t.test(`${lang}: a session over the budget is refused in words`, async () => {
        await page.getByTestId("open-explore").click();
        const modal = page.getByTestId("explore-modal");
        await modal.getByTestId("explore-cell").click();
        const refusal = modal.getByTestId("refusal");
        await refusal.waitFor();
        assert.equal(await refusal.getAttribute("data-code"), "SESSION_BUDGET_EXHAUSTED");
        const text = (await refusal.textContent()) ?? "";
        assert.ok(text.includes(w.budgetTitle), `the limit is named: ${text}`);
        assert.match(text, w.budgetRefused, "the refusal says which limit in words");
        assert.ok(!/Something went wrong|出错了/.test(text), "never a generic failure");
        await page.screenshot({ path: join(SHOTS, `explore-refused-${lang}.png`) });
        await modal.locator(".mantine-Modal-close").click();
        await modal.waitFor({ state: "detached" });
      });
    }

    await t.test("the page raised no error", () => {
      assert.deepEqual(pageErrors, [], "the UI raised no uncaught error");
    });
  } finally {
    await close();
  }
});
