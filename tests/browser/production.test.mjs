// Production conversations, in both languages at 1280x800: an OTLP/JSON
// file the official OpenTelemetry SDK wrote (tests/otlp/sample.jsonl, made
// by make_sample.py: four conversations, an e-mail address in a user turn,
// line 3 cut short) is imported through the file input for a target, its
// summary names the skipped line and what was redacted; the list is
// filtered by words, a conversation opens with its tool calls and traces,
// a scenario drafted from it is saved into the "production" pack; two
// conversations propose seeds that open a new campaign's form, whose
// report marks the cells production reaches and exploration never tried.
// Then seeds by an analyst model, and the rules standing in for it.

import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { api, assertNothingClipped, BASE, LANGS, launch, serveOwn, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const SAMPLE = fileURLToPath(new URL("../otlp/sample.jsonl", import.meta.url));
const TARGET = "Shop assistant (production)";
const WORDS = {
  en: { campaign: "From production", badLine: /^Line 3: /, email: /E-mail addresses: 1/, filter: "refund", tool: /start_return/, saved: /Saved to your pack “production”/, note: /2 personas and 2 goals/, gap: "Production only", noJudge: /No session has been reviewed by the judge yet/ },
  zh: { campaign: "来自生产环境的活动", badLine: /^第 3 行：/, email: /电子邮箱：1 处/, filter: "地址", tool: /update_address/, saved: /已保存到你的场景包“production”/, note: /2 个人设和 2 个目标/, gap: "仅生产出现", noJudge: /尚无会话经过评审复核/ },
};

test("production conversations: import, filter, read, draft a scenario, propose seeds, in both languages", { timeout: 300_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const target = await api("/api/targets", { method: "POST", body: JSON.stringify({ name: TARGET, channel: { kind: "builtin", agent: "demo" } }) });
  const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 } });
  const shot = async (name, lang) => {
    await page.waitForTimeout(300); // modals and drawers finish their transition
    await assertNothingClipped(page, `${name} (${lang})`);
    await page.screenshot({ path: join(SHOTS, `production-${name}-${lang}.png`) });
  };
  try {
    await signIn(page);
    for (const lang of LANGS) {
      const w = WORDS[lang];
      await t.test(`${lang}: import -> filter -> open -> draft -> seeds -> campaign`, async () => {
        await page.goto(`${BASE}/#/production`);
        await setLanguage(page, lang);

        // The import: the file, the target; redaction is on by default.
        await page.getByTestId("import-traces").click();
        const modal = page.getByTestId("import-modal");
        assert.ok(await modal.getByTestId("import-submit").isDisabled(), "nothing to import before a file is chosen");
        await modal.getByTestId("import-file-input").setInputFiles(SAMPLE);
        await modal.getByTestId("import-target").click();
        await page.getByRole("option", { name: TARGET }).click();
        assert.ok(await modal.getByTestId("import-redact").isChecked(), "redaction is on by default");
        await modal.getByTestId("import-submit").click();
        const summary = modal.getByTestId("import-summary");
        await summary.waitFor();
        assert.match(await summary.getByTestId("import-problem").innerText(), w.badLine, "the broken line is named by its number");
        assert.match(await summary.getByTestId("import-redacted").innerText(), w.email, "the e-mail address was replaced");
        await shot("import", lang);
        await modal.getByTestId("import-close").click();

        // The list of the target's conversations, then filtered by words.
        await page.getByTestId("conversation-filter-target").click();
        await page.getByRole("option", { name: TARGET }).click();
        const rows = page.getByTestId("conversation-row");
        await page.waitForFunction(() => document.querySelectorAll('[data-testid="conversation-row"]').length === 4);
        await shot("list", lang);
        await page.getByTestId("conversation-filter-text").fill(w.filter);
        await page.waitForFunction(() => document.querySelectorAll('[data-testid="conversation-row"]').length === 1);

        // One conversation: its messages, tool calls and traces.
        await rows.first().getByTestId("conversation-link").click();
        const drawer = page.getByTestId("conversation-drawer");
        await drawer.getByTestId("production-conversation").waitFor();
        assert.match(await drawer.getByTestId("tool-call").first().innerText(), w.tool);
        assert.ok((await drawer.getByTestId("trace-id").count()) >= 1, "the traces are its lineage");
        await shot("conversation", lang);

        // A scenario drafted from it, saved into the production pack.
        await drawer.getByTestId("draft-scenario").click();
        const draft = page.getByTestId("regression-modal");
        const yaml = draft.getByTestId("regression-yaml");
        await yaml.waitFor();
        const id = /- id: (\S+)/.exec(await yaml.inputValue())?.[1];
        assert.ok(id, "the draft names its scenario");
        await draft.getByTestId("regression-file").fill(`from-production-${lang}.yaml`);
        await draft.getByTestId("regression-save").click();
        await draft.getByTestId("regression-saved").filter({ hasText: w.saved }).waitFor();
        await shot("draft", lang);
        const scenario = (await api("/api/scenarios")).find((s) => s.id === id);
        assert.ok(scenario && scenario.pack === "production" && !scenario.shipped, `the production pack lists it: ${JSON.stringify(scenario)}`);
        await page.keyboard.press("Escape");
        await draft.waitFor({ state: "hidden" });
        await page.keyboard.press("Escape");
        await drawer.waitFor({ state: "hidden" });

        // Two conversations propose seeds, which open a new campaign's form.
        await page.getByTestId("conversation-filter-text").fill("");
        await page.waitForFunction(() => document.querySelectorAll('[data-testid="conversation-row"]').length === 4);
        await rows.nth(0).getByTestId("conversation-select").check();
        await rows.nth(1).getByTestId("conversation-select").check();
        await page.getByTestId("propose-seeds").click();
        const proposal = page.getByTestId("seed-proposal");
        await proposal.getByTestId("proposed-goal").nth(1).waitFor();
        const proposed = await proposal.getByTestId("proposed-persona").allInnerTexts();
        assert.equal(proposed.length, 2, "a persona per conversation");
        assert.equal(await proposal.getByTestId("seed-lineage").count(), 4, "each persona and goal names its traces");
        await shot("seeds", lang);
        await proposal.getByTestId("seeds-to-campaign").click();
        const form = page.getByTestId("campaign-form");
        await form.getByTestId("seeds-note").filter({ hasText: w.note }).waitFor();
        const names = await form.getByTestId("persona-name").evaluateAll((els) => els.map((e) => e.value));
        assert.equal(names.length, 2);
        for (const n of names) assert.ok(proposed.some((p) => p.includes(n)), `the proposed persona ${n} is in the seed editor`);
        await form.getByTestId("seed-editor").scrollIntoViewIfNeeded();
        await shot("campaign-form", lang);
        await form.getByTestId("campaign-name").fill(w.campaign);
        await form.getByTestId("campaign-submit").click();
        await page.getByTestId("campaign-title").filter({ hasText: w.campaign }).waitFor();

        // Its report: production placed on the grid; with one cell explored,
        // the cells only production reaches are marked.
        const campaign = (await api("/api/campaigns")).find((c) => c.name === w.campaign);
        assert.equal(campaign.target_id, target.id, "the form started on the conversations' target");
        const [p0] = campaign.seed_set.personas;
        const [g0] = campaign.seed_set.goals;
        await api("/api/exploration/sessions", {
          method: "POST",
          body: JSON.stringify({ campaign_id: campaign.id, persona: p0, goal: g0, seed_ref: { persona_id: p0.id, goal_id: g0.id }, trigger: "manual", played_by: "person" }),
        });
        await page.goto(`${BASE}/#/campaigns/${campaign.id}/report/exploration`);
        const grid = page.getByTestId("coverage-grid");
        await grid.waitFor();
        assert.ok((await grid.getByTestId("coverage-gap").count()) >= 1, "a cell production reaches and exploration never tried is marked");
        assert.match(await grid.getByTestId("coverage-gap").first().innerText(), new RegExp(w.gap, "i"));
        assert.match(await page.getByTestId("judge-status").innerText(), w.noJudge, "an open session has no review yet, and the report says so");
        await page.getByTestId("coverage-production-legend").scrollIntoViewIfNeeded();
        await shot("coverage", lang);
      });
    }
    assert.deepEqual(pageErrors, [], "the page raised no error");
  } finally {
    await close();
  }
});

// With an analyst model configured (a local OpenAI-compatible server), it
// proposes the seeds and the proposal says so; when its answer cannot be
// used, the rules stand in and the proposal says why, in the reader's
// language. A server of its own, started with the analyst in its
// environment, so that the shared server keeps no model.
const ANALYST_ANSWER = {
  personas: [{ name: "Impatient buyer", description: "Asks in one line", style: "terse", patience: 2, language: "en", from: [1, 2] }],
  goals: [{ title: "Track an order or a refund", description: "Wants to know where it stands", success_criteria: ["gives the status"], from: [1, 2] }],
};
const BY = {
  en: { analyst: /Proposed by the analyst model/, rules: /Proposed by simple rules/, problem: /the rules proposed the seeds instead/ },
  zh: { analyst: /由分析模型提议/, rules: /由简单规则提议/, problem: /已改由规则提出/ },
};

test("seeds by the analyst model, and the rules standing in with the reason, in both languages", { timeout: 120_000 }, async (t) => {
  let usable = true;
  const model = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const content = usable ? JSON.stringify(ANALYST_ANSWER) : '{"personas": "none"}';
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ id: "c1", object: "chat.completion", created: 1, model: "mock-analyst", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }], usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } }));
    });
  });
  await new Promise((ok) => model.listen(0, "127.0.0.1", ok));
  const data = await mkdtemp(join(tmpdir(), "agenteval-analyst-"));
  const key = "analyst-browser-test-key";
  const server = await serveOwn({
    key,
    args: ["--no-patrol", "--data-dir", join(data, "data")],
    log: join(data, "serve.log"),
    env: { ...process.env, AGENTEVAL_ANALYST_BASE_URL: `http://127.0.0.1:${model.address().port}/v1`, AGENTEVAL_ANALYST_MODEL: "mock-analyst" },
  });
  const { base } = server;
  const { page, close } = await launch({ viewport: { width: 1280, height: 800 } });
  try {
    const imported = await fetch(`${base}/api/traces/import?source=sample.jsonl`, { method: "POST", headers: { "X-API-Key": key, "Content-Type": "text/plain" }, body: await readFile(SAMPLE, "utf8") });
    assert.equal(imported.status, 200, await imported.text());
    await page.goto(`${base}/?key=${encodeURIComponent(key)}#/production`);
    for (const lang of LANGS) {
      await t.test(lang, async () => {
        await setLanguage(page, lang);
        const rows = page.getByTestId("conversation-row");
        await page.waitForFunction(() => document.querySelectorAll('[data-testid="conversation-row"]').length === 4);
        await rows.nth(0).getByTestId("conversation-select").check();
        await rows.nth(1).getByTestId("conversation-select").check();

        usable = true;
        await page.getByTestId("propose-seeds").click();
        const proposal = page.getByTestId("seed-proposal");
        assert.match(await proposal.getByTestId("seed-proposed-by").innerText(), BY[lang].analyst);
        assert.equal(await proposal.getByTestId("proposed-persona").count(), 1, "the analyst grouped the two users");
        assert.match(await proposal.getByTestId("proposed-persona").innerText(), /Impatient buyer/);
        assert.equal(await proposal.getByTestId("seed-analyst-problem").count(), 0);
        await page.keyboard.press("Escape");
        await proposal.waitFor({ state: "hidden" });

        usable = false;
        await page.getByTestId("propose-seeds").click();
        assert.match(await proposal.getByTestId("seed-proposed-by").innerText(), BY[lang].rules);
        const problem = await proposal.getByTestId("seed-analyst-problem").innerText();
        assert.match(problem, BY[lang].problem);
        assert.match(problem, /\/personas/, `where the answer went wrong: ${problem}`);
        if (lang === "zh") assert.doesNotMatch(problem, /schema|type|does not/i, `the reason in Chinese: ${problem}`);
        assert.equal(await proposal.getByTestId("proposed-persona").count(), 2, "a persona a conversation");
        await page.waitForTimeout(300);
        await page.screenshot({ path: join(SHOTS, `production-seeds-fallback-${lang}.png`) });
        await page.keyboard.press("Escape");
        await proposal.waitFor({ state: "hidden" });
      });
    }
  } finally {
    await close();
    await server.stop();
    model.close();
    await rm(data, { recursive: true, force: true });
  }
});
