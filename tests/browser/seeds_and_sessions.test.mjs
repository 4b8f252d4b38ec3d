// Nothing typed is lost, in both languages at 1280x800: a seed set with any
// JSON in it is typed in the JSON editor (errors placed by line and column)
// or imported from a .json file (read as JSON, its errors said as JSON
// errors), and the import says what it kept as given; a session left open
// is discarded from its drawer, ends as abandoned and gives its budget slot
// back; a half-filled campaign form asks before Escape or a reload throws
// it away, and a disabled action says why.

import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { api, assertNothingClipped, BASE, LANGS, launch, setLanguage, signIn } from "./helpers.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SHOTS = join(ROOT, "docs", "screenshots");
const WORK = process.env.AGENTEVAL_TMP ?? "/tmp";

const WORDS = {
  en: {
    commaAt: /Line 3, column 3: a comma is missing/,
    fileError: /broken\.json:3:3: not valid JSON: a comma is missing/,
    kept: /2 fields kept as given.*p-json\.style.*g-json\.slots\.order_id/,
    slotJson: "JSON, kept as given",
    abandoned: "Abandoned",
    exploreClosed: /The campaign.s window is closed/,
    facts: "Facts you can give: note = by mail · order_id = A1024 (receipt)",
    style: "Style: length: max_words: 20 · tone: formal",
    personPlayed: "A person played the user in this session",
  },
  zh: {
    commaAt: /第 3 行第 3 列：缺少逗号/,
    fileError: /broken\.json:3:3：JSON 无效：缺少逗号/,
    kept: /2 个字段按原样保留.*p-json\.style.*g-json\.slots\.order_id/,
    slotJson: "JSON，按原样保留",
    abandoned: "已放弃（无人继续）",
    exploreClosed: /活动窗口已关闭/,
    facts: "可提供的信息: note = by mail · order_id = A1024 (receipt)",
    style: "说话风格: length: max_words: 20 · tone: formal",
    personPlayed: "这个会话由真人扮演用户",
  },
};

const SEEDS = {
  personas: [{ id: "p-json", name: "Ada", language: "en", style: { tone: "formal", length: { max_words: 20 } } }],
  goals: [{ id: "g-json", title: "Track my order", slots: { order_id: { value: "A1024", source: "receipt" }, note: "by mail" } }],
};

test("seed JSON and sessions left open, in both languages", { timeout: 300_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const target = await api("/api/targets", { method: "POST", body: JSON.stringify({ name: "Seeds walk", channel: { kind: "builtin", agent: "demo" } }) });
  const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 } });
  try {
    await signIn(page);
    for (const lang of LANGS) {
      const w = WORDS[lang];
      await t.test(`${lang}: seed JSON is typed, checked by line and column, and kept as given`, async () => {
        await page.goto(`${BASE}/#/campaigns`);
        await setLanguage(page, lang);
        await page.getByTestId("new-campaign").click();
        const form = page.getByTestId("campaign-form");
        await form.getByTestId("seed-edit-json").click();
        const editor = page.getByTestId("seed-json-editor");
        const text = editor.getByTestId("seed-json-text");
        await text.fill('{\n  "personas": []\n  "goals": []\n}');
        const error = editor.locator(".mantine-InputWrapper-error");
        assert.match((await error.textContent()) ?? "", w.commaAt);
        assert.ok(await editor.getByTestId("seed-json-apply").isDisabled(), "invalid JSON is not applied");
        await text.fill(JSON.stringify(SEEDS, null, 2));
        await editor.getByTestId("seed-json-apply").click();
        await text.waitFor({ state: "detached" });
        assert.match((await form.getByTestId("seed-imported").textContent()) ?? "", w.kept, "the import says what it kept as JSON");
        assert.equal(await form.getByTestId("persona-style").inputValue(), "", "a style object is not squeezed into the text field");
        assert.match((await form.getByTestId("seed-extra").first().textContent()) ?? "", /"tone":"formal"/, "the style object is shown as it will be sent");
        const values = await form.getByTestId("slot-value").evaluateAll((els) => els.map((e) => e.value));
        assert.ok(values.includes('{"value":"A1024","source":"receipt"}'), `the fact object stays JSON: ${values}`);
        assert.ok(values.includes("by mail"), "a text fact stays text");
        assert.match((await form.textContent()) ?? "", new RegExp(w.slotJson));
        await form.getByTestId("seed-editor").scrollIntoViewIfNeeded();
        await assertNothingClipped(page, `the seed editor (${lang})`);
        await page.screenshot({ path: join(SHOTS, `seed-json-${lang}.png`) });

        // A .json file is read as JSON, and its error placed in the file.
        const broken = join(WORK, "broken.json");
        await writeFile(broken, '{\n  "personas": []\n  "goals": []\n}\n');
        await form.getByTestId("seed-import-input").setInputFiles(broken);
        const alert = form.getByTestId("seed-import-error");
        await alert.waitFor();
        assert.match((await alert.textContent()) ?? "", w.fileError);
        await page.screenshot({ path: join(SHOTS, `seed-json-error-${lang}.png`) });

        // What the form sends is what was typed: created and read back.
        await form.getByTestId("campaign-name").fill(`Seed JSON ${lang}`);
        await form.getByTestId("campaign-target").click();
        await page.getByRole("option", { name: "Seeds walk" }).first().click();
        await form.getByTestId("scenario-option").first().check();
        await form.getByTestId("campaign-submit").click();
        await page.getByTestId("campaign-title").filter({ hasText: `Seed JSON ${lang}` }).waitFor();
        const created = (await api("/api/campaigns")).find((c) => c.name === `Seed JSON ${lang}`);
        assert.deepEqual(created.seed_set, SEEDS, "every JSON value round-trips unchanged");
      });

      await t.test(`${lang}: a session left open is discarded from its drawer`, async () => {
        const campaign = await api("/api/campaigns", {
          method: "POST",
          body: JSON.stringify({ name: `Discard ${lang}`, target_id: target.id, duration_hours: 24, seed_set: SEEDS, budget: { max_sessions: 1, min_interval_minutes: 0 } }),
        });
        const start = () =>
          fetch(`${BASE}/api/exploration/sessions`, {
            method: "POST",
            headers: { "X-API-Key": process.env.AGENTEVAL_KEY, "Content-Type": "application/json" },
            body: JSON.stringify({ campaign_id: campaign.id, persona: SEEDS.personas[0], goal: SEEDS.goals[0], seed_ref: { persona_id: "p-json", goal_id: "g-json" }, played_by: "person" }),
          });
        const session = await (await start()).json();
        await api(`/api/exploration/sessions/${session.id}/messages`, { method: "POST", body: JSON.stringify({ content: "Where is order A1024?" }) });
        assert.equal((await start()).status, 409, "the only budget slot is held");

        // Resumed, the person-play panel shows every fact with its value
        // and the persona's style, whatever their JSON shape.
        await page.goto(`${BASE}/#/campaigns/${campaign.id}/sessions/${session.id}`);
        await page.getByTestId("session-drawer").getByTestId("session-resume").click();
        const summary = page.getByTestId("explore-modal").getByTestId("seed-summary");
        await summary.waitFor();
        const said = (await summary.textContent()) ?? "";
        assert.ok(said.includes(w.facts), `the facts with their values: ${said}`);
        assert.ok(said.includes(w.style), `the persona's style: ${said}`);
        await page.screenshot({ path: join(SHOTS, `person-play-seed-${lang}.png`) });
        await page.goto(`${BASE}/#/campaigns`);

        await page.goto(`${BASE}/#/campaigns/${campaign.id}/sessions/${session.id}`);
        const drawer = page.getByTestId("session-drawer");
        await drawer.getByTestId("session-discard").click();
        const confirm = page.getByTestId("discard-confirm-button");
        await confirm.waitFor();
        await page.screenshot({ path: join(SHOTS, `session-discard-${lang}.png`) });
        await confirm.click();
        await confirm.waitFor({ state: "detached" });
        await drawer.getByText(w.abandoned, { exact: true }).first().waitFor();
        assert.equal(await drawer.getByTestId("session-discard").count(), 0, "an ended session offers no discard");
        assert.ok((await drawer.textContent()).includes("Where is order A1024?"), "the conversation stays readable");
        assert.ok(
          ((await drawer.getByTestId("session-simulator").textContent()) ?? "").includes(w.personPlayed),
          "a person's session is not said to have a virtual user that kept its role",
        );
        await assertNothingClipped(page, `the discarded session's drawer (${lang})`);
        await page.screenshot({ path: join(SHOTS, `session-abandoned-${lang}.png`) });
        const after = await api(`/api/exploration/sessions/${session.id}`);
        assert.equal(after.end_reason, "abandoned");
        assert.equal((await start()).status, 200, "the budget slot was given back");
      });

      await t.test(`${lang}: a half-filled form asks before it is lost, and a disabled action says why`, async () => {
        await page.goto(`${BASE}/#/campaigns`);
        await page.getByTestId("new-campaign").click();
        const form = page.getByTestId("campaign-form");
        const name = page.getByTestId("campaign-name");
        await name.fill(`Half-filled ${lang}`);
        // Escape asks; keeping on editing keeps what was typed.
        await page.keyboard.press("Escape");
        await page.getByTestId("campaign-keep-editing").click();
        assert.equal(await name.inputValue(), `Half-filled ${lang}`);
        // A reload asks too (the browser's own question); staying keeps it.
        const asked = new Promise((resolve) =>
          page.once("dialog", (d) => {
            resolve(d.type());
            void d.dismiss();
          }),
        );
        await name.click(); // a gesture of the user's: the browser asks only then
        void page.evaluate(() => window.location.reload()).catch(() => undefined);
        assert.equal(await asked, "beforeunload");
        assert.equal(await name.inputValue(), `Half-filled ${lang}`, "staying on the page keeps the form");
        await page.keyboard.press("Escape");
        await page.getByTestId("campaign-discard-confirm").click();
        await form.waitFor({ state: "detached" });

        // A closed window: Explore is disabled and says why, on hover and to a screen reader.
        const closed = await api("/api/campaigns", {
          method: "POST",
          body: JSON.stringify({ name: `Closed ${lang}`, target_id: target.id, duration_hours: 1, time_scale: 10000, seed_set: SEEDS }),
        });
        for (let i = 0; i < 100 && (await api(`/api/campaigns/${closed.id}`)).status !== "finalized"; i++) await new Promise((r) => setTimeout(r, 100));
        await page.goto(`${BASE}/#/campaigns/${closed.id}`);
        const why = page.getByTestId("explore-disabled-reason");
        assert.ok(await page.getByTestId("open-explore").isDisabled());
        assert.match((await why.getAttribute("aria-label")) ?? "", w.exploreClosed);
        await why.hover();
        await page.getByRole("tooltip").filter({ hasText: w.exploreClosed }).waitFor();
      });
    }
    assert.deepEqual(pageErrors, [], "the page raised no error");
  } finally {
    await close();
  }
});
