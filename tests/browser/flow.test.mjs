// The main flow in a real browser against `agenteval serve` (started by
// run.sh): key prompt, language switch, patrol agent pause and resume,
// target and campaign through the forms, manual exploration, runs
// progressing, report drawer, a session's conversation, Markdown export.
// Agent- and user-provided text must render as text, never as markup.

import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, KEY, api, launch } from "./helpers.mjs";

const HOSTILE = `<img src=x onerror="window.__injected=1">`;
const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const CAMPAIGN = `Browser campaign ${HOSTILE}`;
const TARGET = "Browser target <b>bold</b>";
const MESSAGE = "Please send the weekly report to anna@example.com";

test("campaign flow in a real browser", { timeout: 300_000 }, async (t) => {
  const downloads = await mkdtemp(join(tmpdir(), "agenteval-downloads-"));
  const { page, pageErrors, close } = await launch({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
  try {
    await t.test("the browser asks for the API key, in the language picked first, and refuses a wrong one in words", async () => {
      await mkdir(SHOTS, { recursive: true });
      await page.goto(BASE + "/");
      // A first-time user picks 中文 before any key: the dialog has its own switch.
      await page.getByTestId("key-language-switch").getByText("中文").click();
      const dialog = page.getByRole("dialog");
      await dialog.getByText("此服务器需要 API 密钥").waitFor();
      const intro = await dialog.textContent();
      assert.ok(!intro.includes("`"), `code is shown as code, not between backticks: ${intro}`);
      assert.equal(await dialog.locator("code").first().textContent(), "agenteval serve");
      await page.getByTestId("api-key-input").fill("wrong-key-0000000000");
      await page.getByTestId("api-key-submit").click();
      const refused = await page.getByTestId("api-key-refused").textContent();
      assert.match(refused, /此密钥未被接受/);
      assert.ok(!/UNAUTHORIZED|header|X-API-Key/i.test(refused), `said for a person: ${refused}`);
      await page.screenshot({ path: join(SHOTS, "key-dialog-zh.png") });
      await page.getByTestId("key-language-switch").getByText("English").click();
      await dialog.getByText("This server needs an API key").waitFor();
      await page.getByTestId("api-key-input").fill("wrong-key-0000000001");
      await page.getByTestId("api-key-submit").click();
      await page.getByTestId("api-key-refused").getByText("This key is not accepted").waitFor();
      await page.screenshot({ path: join(SHOTS, "key-dialog-en.png") });
      await page.getByTestId("api-key-input").fill(KEY);
      await page.getByTestId("api-key-submit").click();
      await page.getByTestId("campaign-table").waitFor();
    });

    await t.test("the key is remembered and the language switches", async () => {
      await page.reload();
      await page.getByTestId("campaign-table").waitFor();
      await page.getByTestId("language-switch").getByText("中文").click();
      await page.getByTestId("nav-campaigns").getByText("活动").waitFor();
      await page.getByTestId("language-switch").getByText("English").click();
      await page.getByTestId("nav-campaigns").getByText("Campaigns").waitFor();
    });

    await t.test("the patrol agent is paused and resumed from the campaign list", async () => {
      const bar = page.getByTestId("patrol-agent");
      await page.locator('[data-testid="patrol-agent"][data-state="running"]').waitFor();
      await bar.getByTestId("patrol-toggle").getByText("Pause").click();
      await page.locator('[data-testid="patrol-agent"][data-state="paused"]').waitFor();
      let status = await api("/api/patrol-agent");
      assert.equal(status.paused, true, "the pause reached the server");
      await page.reload();
      await page.locator('[data-testid="patrol-agent"][data-state="paused"]').waitFor();
      await bar.getByTestId("patrol-toggle").getByText("Resume").click();
      await page.locator('[data-testid="patrol-agent"][data-state="running"]').waitFor();
      status = await api("/api/patrol-agent");
      assert.equal(status.paused, false, "the resume reached the server");
      assert.ok(status.next_wake_at, "a running agent plans its next wake-up");
    });

    await t.test("a target is created through the form", async () => {
      await page.getByTestId("nav-targets").click();
      await page.getByTestId("target-kind").getByText("Built-in demo agent").click();
      await page.getByTestId("target-name").fill(TARGET);
      await page.getByTestId("target-submit").click();
      const row = page.getByTestId("target-row").filter({ hasText: TARGET });
      await row.waitFor();
      assert.equal(await page.locator("b", { hasText: "bold" }).count(), 0, "a target name is shown as text, not markup");
    });

    await t.test("a campaign is created through the form", async () => {
      await page.getByTestId("nav-campaigns").click();
      await page.getByTestId("new-campaign").click();
      await page.getByTestId("campaign-name").fill(CAMPAIGN);
      await page.getByTestId("campaign-target").click();
      await page.getByRole("option", { name: TARGET }).click();
      await page.getByTestId("select-shown").click();
      const checked = await page.getByTestId("scenario-option").evaluateAll((els) => els.filter((e) => e.checked).length);
      assert.ok(checked > 0, "scenario packs are loaded and selectable");
      await page.getByTestId("campaign-hours").fill("2");
      await page.getByTestId("campaign-scale").fill("360");
      await page.getByTestId("add-persona").click();
      await page.getByTestId("seed-editor").getByLabel("Name").fill("Busy manager");
      await page.getByTestId("add-goal").click();
      await page.getByTestId("seed-editor").getByLabel("Title").fill("Send the weekly report");
      await page.getByTestId("campaign-submit").click();
      await page.getByTestId("campaign-title").filter({ hasText: "Browser campaign" }).waitFor();
      const title = await page.getByTestId("campaign-title").textContent();
      assert.equal(title, CAMPAIGN, "the campaign name is rendered literally");
    });

    await t.test("a manual exploration session runs and closes", async () => {
      await page.getByTestId("open-explore").click();
      const modal = page.getByTestId("explore-modal");
      await modal.getByTestId("explore-tab-person").click();
      await modal.getByTestId("explore-start").click();
      await modal.getByLabel("Message to the target").fill(MESSAGE);
      await modal.getByRole("button", { name: "Send" }).click();
      await modal.getByText(MESSAGE).waitFor();
      await modal.getByTestId("manual-session").locator('[data-testid="manual-turn"][data-role="target"]').first().waitFor();
      await modal.getByRole("button", { name: "Close session" }).click();
      await modal.waitFor({ state: "detached" });
      await page.getByTestId("session-row").first().waitFor();
    });

    await t.test("fixed-scenario runs progress to the end", async () => {
      const text = page.getByTestId("runs-progress-text");
      const deadline = Date.now() + 180_000;
      let last = "";
      for (;;) {
        last = (await text.textContent()) ?? "";
        const m = /(\d+) of (\d+) runs ended/.exec(last);
        if (m && Number(m[2]) > 0 && m[1] === m[2]) break;
        assert.ok(Date.now() < deadline, `runs should finish within the 20 s window; last seen: ${last}`);
        await page.waitForTimeout(1000);
      }
    });

    await t.test("the report drawer shows scores and exploration findings", async () => {
      await page.getByTestId("open-report").click();
      await page.getByTestId("report-pass-rate").waitFor();
      assert.match((await page.getByTestId("report-pass-rate").textContent()) ?? "", /%$/, "finished runs give a pass rate");
      assert.match(
        (await page.getByTestId("report-pass-rate-hint").textContent()) ?? "",
        /(95% interval|95% 区间) \d+(\.\d)?% (to|至) \d+(\.\d)?%/,
        "the pass rate comes with its interval",
      );
      await page.getByTestId("tab-exploration").click();
      await page.getByTestId("exploration-findings").waitFor();
      await page.getByTestId("report-session-row").first().click();
      const session = page.getByTestId("session-drawer");
      await session.getByTestId("session-conversation").getByText(MESSAGE).waitFor();

      const star = session.getByTestId("session-rating").getByRole("radio", { name: "4" });
      await page.locator(`label[for="${await star.getAttribute("id")}"]`).click();
      await session.getByTestId("session-rate-submit").click();
      await session.getByTestId("session-rated").waitFor();
      await page.keyboard.press("Escape");
      await page.keyboard.press("Escape");
    });

    await t.test("the Markdown export downloads and names the campaign", async () => {
      await page.getByTestId("export-menu").click();
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-md").click()]);
      const file = join(downloads, download.suggestedFilename());
      await download.saveAs(file);
      const text = await readFile(file, "utf8");
      assert.ok(download.suggestedFilename().endsWith(".md"), "the file is saved as .md");
      assert.ok(text.includes("Browser campaign"), "the export is about this campaign");
      assert.ok(text.length > 100, "the export carries the report");
    });

    await t.test("no text was executed as markup and the page raised no error", async () => {
      const injected = await page.evaluate(() => Reflect.get(window, "__injected"));
      assert.equal(injected, undefined, "hostile names never run script");
      assert.equal(await page.locator('img[src="x"]').count(), 0, "hostile names never become elements");
      assert.deepEqual(pageErrors, [], "the UI raised no uncaught error");
    });
  } finally {
    await close();
    await rm(downloads, { recursive: true, force: true });
  }
});

test("the UI is served under a strict content security policy: no inline script runs", { timeout: 120_000 }, async () => {
  const res = await fetch(BASE + "/");
  const csp = res.headers.get("content-security-policy") ?? "";
  assert.match(csp, /script-src 'self'(;|$)/, `scripts only from the UI itself: ${csp}`);
  assert.match(csp, /frame-ancestors 'none'/, "the UI is never framed");
  const { page, pageErrors, close } = await launch();
  const refused = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
  });
  try {
    await page.goto(`${BASE}/?key=${encodeURIComponent(KEY)}#/campaigns`);
    await page.getByTestId("campaign-table").waitFor();
    const ran = await page.evaluate(async () => {
      const s = document.createElement("script");
      s.textContent = "window.__inline = 1";
      document.head.appendChild(s);
      await new Promise((r) => setTimeout(r, 100));
      return Reflect.get(window, "__inline") ?? null;
    });
    assert.equal(ran, null, "an inline script is refused");
    assert.ok(refused.length > 0, "the browser reports the refusal");
    assert.ok(refused.every((m) => m.includes("script")), `only the injected script is refused, nothing the UI needs: ${refused.join("\n")}`);
    assert.deepEqual(pageErrors, [], "the UI runs under the policy");
  } finally {
    await close();
  }
});
