// A manager follows the evidence in a real browser against `agenteval serve`
// on the demo data (run.sh runs `agenteval demo` into the served folder
// first): campaign -> report -> exploration findings -> an issue -> its
// sessions -> the session at the turn that caused it (highlighted); a judge
// finding -> its session at its turn; a reload on the session URL shows the
// same session; Back returns. In English and Chinese.
//
// Also: no text is clipped on the main screens at 1280x800 and 1440x900 in
// both languages (an element whose content is wider than its box fails,
// named), and screenshots of the main screens go to docs/screenshots/.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, KEY, LANGS, api, assertNothingClipped, clipped, findCampaign, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));

async function shot(page, name) {
  await page.waitForTimeout(300); // drawers and modals finish their transition
  await page.screenshot({ path: join(SHOTS, name) });
}

test("a manager follows the evidence from an issue to the turn that caused it", { timeout: 600_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });

  // The demo campaign, with issues and judge findings that carry turns.
  const demo = await findCampaign(
    (r) => (r.exploration?.issues?.length ?? 0) > 0 && (r.exploration?.findings ?? []).some((f) => f.turn),
    "a finished demo campaign with issues and judge findings",
  );
  const id = demo.campaign.id;
  const ex = demo.exploration;

  const { page, pageErrors, close } = await launch();
  try {
    await signIn(page);

    for (const lang of LANGS) {
      await t.test(`[${lang}] campaign -> report -> an issue -> its sessions -> the session at its turn`, async () => {
        await page.goto(`${BASE}/#/campaigns`);
        await setLanguage(page, lang);
        await page.getByTestId("campaign-table").waitFor();
        await shot(page, `campaign-list-${lang}.png`);

        await page.getByTestId("campaign-row").filter({ hasText: demo.campaign.name }).click();
        await page.waitForURL(new RegExp(`#/campaigns/${id}$`));
        await page.getByTestId("runs-table").waitFor();
        await page.getByTestId("session-table").first().waitFor();
        await shot(page, `campaign-${lang}.png`);

        await page.getByTestId("open-report").click();
        await page.waitForURL(/\/report\/scores$/);
        await page.getByTestId("tab-exploration").click();
        await page.waitForURL(/\/report\/exploration$/);
        const findings = page.getByTestId("exploration-findings");
        await findings.waitFor();
        await page.getByTestId("issue-list").waitFor();
        await shot(page, `report-exploration-${lang}.png`);

        // Each issue once, in one line of the reader's language when the
        // built-in virtual user reported it (the API renders it the same),
        // else each phrasing as written.
        const rows = page.getByTestId("issue-row");
        assert.equal(await rows.count(), ex.issues.length, "one row per issue");
        const inLang = (await api(`/api/campaigns/${id}/report?lang=${lang}`)).exploration;
        for (const issue of inLang.issues) {
          const lines = issue.msg ? [issue.msg.text] : [...new Set(issue.texts ?? [issue.text])];
          for (const text of lines) {
            assert.ok((await page.getByTestId("issue-list").getByText(text, { exact: true }).count()) >= 1, `phrasing shown: ${text}`);
          }
        }
        // The coverage grid names personas and goals, not ids.
        const personas = await page.getByTestId("coverage-persona").allTextContents();
        const names = (demo.campaign.seed_set.personas ?? []).map((p) => p.name);
        assert.ok(personas.length > 0 && personas.every((p) => names.includes(p)), `coverage rows are persona names: ${personas.join(", ")}`);

        // The issue with a session whose judge points at a turn.
        const withTurn = ex.issues.findIndex((i) => i.session_ids.some((s) => ex.findings.some((f) => f.session_id === s && f.turn)));
        assert.ok(withTurn >= 0, "some issue has a session with a judge finding at a turn");
        await rows.nth(withTurn).getByTestId("issue-open").click();
        await page.waitForURL(/\/report\/exploration\?issue=/);
        const modal = page.getByTestId("evidence-sessions-body");
        await modal.waitFor();
        const evidenceRows = modal.getByTestId("evidence-session-row");
        await evidenceRows.first().waitFor();
        assert.equal(
          await evidenceRows.count(),
          ex.issues[withTurn].session_ids.length,
          "the issue lists exactly its sessions",
        );
        await shot(page, `issue-sessions-${lang}.png`);
        const row = evidenceRows.filter({ has: page.getByTestId("session-evidence-turn") }).first();
        const sid = await row.getAttribute("data-session-id");
        await row.getByTestId("session-link").click();

        await page.waitForURL(new RegExp(`/sessions/${sid}\\?turn=\\d+$`));
        const turn = Number(new URL(page.url().replace("#", "")).searchParams.get("turn"));
        const drawer = page.getByTestId("session-drawer");
        const lit = drawer.getByTestId("turn-highlighted").first();
        await lit.waitFor();
        assert.equal(await lit.getAttribute("data-round"), String(turn), "the highlighted turn is the one the URL names");
        const judged = ex.findings.filter((f) => f.session_id === sid).map((f) => f.turn);
        assert.ok(judged.includes(turn), `the turn ${turn} is one the judge pointed at in that session (${judged.join(", ")})`);
        await page.waitForTimeout(400);
        assert.ok(await lit.isVisible(), "the highlighted turn is visible");
        const box = await lit.boundingBox();
        assert.ok(box && box.y >= 0 && box.y < 800, "the drawer is scrolled to the highlighted turn");
        await shot(page, `session-${lang}.png`);

        // A reload on the session URL shows the same session at the same turn.
        await page.reload();
        await page.locator(`[data-testid="session-drawer"] [data-session-id="${sid}"]`).waitFor();
        await drawer.getByTestId("turn-highlighted").first().waitFor();
        assert.equal(await drawer.getByTestId("turn-highlighted").first().getAttribute("data-round"), String(turn));

        // Back returns to the issue's sessions, then to the findings.
        await page.goBack();
        await page.waitForURL(/\/report\/exploration\?issue=/);
        await page.getByTestId("evidence-sessions-body").waitFor();
        await page.goBack();
        await page.waitForURL(/\/report\/exploration$/);
        await page.getByTestId("evidence-sessions").waitFor({ state: "detached" });
        await page.getByTestId("exploration-findings").waitFor();
      });

      await t.test(`[${lang}] a judge finding opens its session at its turn`, async () => {
        const link = page.getByTestId("finding-link").first();
        const f = ex.findings[0];
        await link.click();
        await page.waitForURL(new RegExp(`/sessions/${f.session_id}(\\?turn=(\\d+))?$`));
        const drawer = page.getByTestId("session-drawer");
        await drawer.locator(`[data-session-id="${f.session_id}"]`).waitFor();
        if (f.turn) {
          const lit = drawer.getByTestId("turn-highlighted").first();
          await lit.waitFor();
          assert.equal(await lit.getAttribute("data-round"), String(f.turn), "the finding's turn is highlighted");
        }
        await page.goBack();
        await page.waitForURL(/\/report\/exploration$/);
        await page.getByTestId("exploration-findings").waitFor();
      });

      await t.test(`[${lang}] cited runs and sessions are named so that they can be told apart`, async () => {
        // One name per session, whatever links cite it: its persona, its
        // goal and its place among their sessions (ids of one campaign
        // share their first characters, so no shortened id).
        const sessionRe = lang === "zh" ? / × .+ 第 \d+ 次会话/ : / × .+ #\d+/;
        const runRe = lang === "zh" ? / 第 \d+ 次运行$/ : /, run \d+$/;
        const named = new Map();
        const noteName = (href, text) => {
          const sid = /sessions\/([0-9a-f-]{36})/.exec(href)?.[1];
          assert.ok(sid, `a session link: ${href}`);
          const name = text.replace(lang === "zh" ? / 第 \d+ 轮$/ : /, turn \d+$/, "");
          assert.match(name, sessionRe, `a session is named by persona × goal and number: ${text}`);
          assert.ok(!name.includes(sid.slice(0, 8)), `no shortened id: ${text}`);
          if (named.has(sid)) assert.equal(named.get(sid), name, "one session, one name");
          named.set(sid, name);
        };
        await page.goto(`${BASE}/#/campaigns/${id}/report/exploration`);
        await page.getByTestId("judge-findings").waitFor();
        for (const link of await page.getByTestId("finding-link").all()) {
          noteName(await link.getAttribute("href"), (await link.textContent()).trim());
        }

        await page.goto(`${BASE}/#/campaigns/${id}/report/analysis`);
        await page.getByTestId("report-analysis").waitFor();
        const sessionCites = page.locator('[data-testid="citation-session"], [data-testid="citation-turn"]');
        await sessionCites.first().waitFor();
        for (const link of await sessionCites.all()) {
          noteName(await link.getAttribute("href"), (await link.textContent()).trim());
        }
        const names = [...named.values()];
        assert.equal(new Set(names).size, names.length, `distinct sessions, distinct names: ${names.join(" | ")}`);
        const runs = page.getByTestId("citation-run");
        assert.ok((await runs.count()) > 0, "the analysis cites runs");
        for (const link of await runs.all()) {
          const text = (await link.textContent()).trim();
          assert.match(text, runRe, `a run is named by its scenario and number: ${text}`);
        }
        await shot(page, `analysis-${lang}.png`);
      });

      await t.test(`[${lang}] the runs table filters by verdict on the server's pages`, async () => {
        await page.goto(`${BASE}/#/campaigns/${id}?verdict=failed`);
        await page.getByTestId("runs-table").waitFor();
        const failed = demo.fixed.failed;
        await page.waitForFunction(
          (n) => document.querySelectorAll('[data-testid="run-row"]').length === Math.min(n, 50),
          failed,
        );
        const runs = await api(`/api/campaigns/${id}/runs`);
        assert.equal(runs.filter((r) => r.verdict === "failed").length, failed, "the report and the runs agree");
        if (failed > 0) {
          await page.getByTestId("run-row").first().click();
          await page.waitForURL(/\/runs\/[0-9a-f-]+\?turn=\d+$/);
          await page.getByTestId("run-drawer").getByTestId("check-failed").first().waitFor();
          await page.getByTestId("run-drawer").getByTestId("turn-highlighted").first().waitFor();
          await shot(page, `run-${lang}.png`);
          await page.goBack();
          await page.getByTestId("run-drawer").waitFor({ state: "detached" });
        }
      });
    }

    await t.test("a saved rating shows when the session is opened again", async () => {
      const sid = ex.findings[0].session_id;
      const url = `${BASE}/#/campaigns/${id}/sessions/${sid}`;
      await page.goto(url);
      const drawer = page.getByTestId("session-drawer");
      await drawer.getByTestId("session-conversation").waitFor();
      const star = drawer.getByTestId("session-rating").getByRole("radio", { name: "4" });
      await page.locator(`label[for="${await star.getAttribute("id")}"]`).click();
      await drawer.getByTestId("session-comment").fill("Repeats itself; the manager would give up.");
      await drawer.getByTestId("session-rate-submit").click();
      await drawer.getByTestId("session-rated").waitFor();
      await page.keyboard.press("Escape");
      await page.getByTestId("session-conversation").waitFor({ state: "detached" });
      await page.goto(url);
      await page.reload();
      await drawer.getByTestId("session-rated").waitFor();
      assert.equal(await drawer.getByTestId("session-rating").getByRole("radio", { name: "4" }).isChecked(), true, "4 stars shown");
      assert.equal(await drawer.getByTestId("session-comment").inputValue(), "Repeats itself; the manager would give up.");
    });

    await t.test("a finalized campaign's view stops refreshing", async () => {
      await page.goto(`${BASE}/#/campaigns/${id}`);
      await page.getByTestId("runs-table").waitFor();
      await page.waitForTimeout(1000);
      const seen = [];
      const onRequest = (r) => {
        if (r.url().includes(`/api/campaigns/${id}`) || r.url().includes("/sessions/search")) seen.push(r.url());
      };
      page.on("request", onRequest);
      await page.waitForTimeout(5000);
      page.off("request", onRequest);
      assert.deepEqual(seen, [], "no request while nothing can change");
    });

    await t.test("a running session's turns arrive through events, not polling", async () => {
      const post = (path, body) => api(path, { method: "POST", body: JSON.stringify(body) });
      const eventsRoute = await fetch(`${BASE}/api/events`, { headers: { "X-API-Key": KEY }, signal: AbortSignal.timeout(1500) })
        .then((r) => {
          const ok = r.status;
          r.body?.cancel().catch(() => undefined);
          return ok;
        })
        .catch(() => 0);
      assert.equal(eventsRoute, 200, "the server streams events at /api/events");
      const scenarios = await api("/api/scenarios");
      const campaign = await post("/api/campaigns", {
        name: "Live updates",
        target_id: demo.campaign.target_id,
        scenario_ids: [scenarios[0].id],
        duration_hours: 10,
        time_scale: 100,
      });
      const session = await post("/api/exploration/sessions", {
        campaign_id: campaign.id,
        persona: { name: "Live tester" },
        goal: "See the reply arrive",
        trigger: "manual",
        played_by: "person",
      });
      await page.goto(`${BASE}/#/campaigns/${campaign.id}/sessions/${session.id}`);
      const drawer = page.getByTestId("session-drawer");
      await drawer.getByTestId("session-turn-count").waitFor();
      await page.waitForTimeout(1500);
      const polled = [];
      const onRequest = (r) => {
        if (r.url().includes(`/sessions/${session.id}/messages`)) polled.push(r.url());
      };
      page.on("request", onRequest);
      await page.waitForTimeout(4000);
      assert.deepEqual(polled, [], "an idle session is not polled");
      await post(`/api/exploration/sessions/${session.id}/messages`, { content: "Is anyone there? (sent from outside the page)" });
      await drawer.getByText("Is anyone there? (sent from outside the page)").waitFor({ timeout: 5000 });
      page.off("request", onRequest);
      assert.ok(polled.length >= 1 && polled.length <= 3, `the turn was fetched after its event (${polled.length} requests)`);
    });

    await t.test("the clipping check catches a badge cut off", async () => {
      await page.goto(`${BASE}/#/campaigns`);
      await page.getByTestId("campaign-table").waitFor();
      await page.evaluate(() => {
        const b = document.createElement("span");
        b.className = "mantine-Badge-root";
        b.setAttribute("data-testid", "clipping-probe");
        b.style.cssText = "display:inline-block;width:40px;overflow:hidden;white-space:nowrap";
        b.textContent = "ASKS_CLARIFICATION";
        document.body.appendChild(b);
      });
      const found = await clipped(page);
      assert.ok(found.some((x) => x.includes("ASKS_CLARIFICATION")), "the probe is reported, named");
      await page.evaluate(() => document.querySelector('[data-testid="clipping-probe"]')?.remove());
    });

    for (const size of [
      { width: 1280, height: 800 },
      { width: 1440, height: 900 },
    ]) {
      for (const lang of LANGS) {
        await t.test(`[${lang} ${size.width}x${size.height}] nothing is clipped on the main screens`, async () => {
          await page.setViewportSize(size);
          await page.goto(`${BASE}/#/campaigns`);
          await setLanguage(page, lang);
          const screens = [
            { hash: "#/campaigns", ready: "campaign-table" },
            { hash: `#/campaigns/${id}`, ready: "runs-table" },
            ...["scores", "scenarios", "analysis", "comparison", "exploration"].map((tab) => ({
              hash: `#/campaigns/${id}/report/${tab}`,
              ready: "report-tabs",
            })),
            { hash: `#/campaigns/${id}/sessions/${ex.findings[0].session_id}?turn=${ex.findings[0].turn ?? 1}`, ready: "session-conversation" },
            { hash: "#/targets", ready: "nav-targets" },
            { hash: "#/settings", ready: "nav-settings" },
          ];
          for (const s of screens) {
            await page.goto(`${BASE}/${s.hash}`);
            await page.getByTestId(s.ready).first().waitFor();
            await page.waitForTimeout(500);
            await assertNothingClipped(page, `${s.hash} (${lang}, ${size.width}x${size.height})`);
          }
          if (size.width === 1280 && lang === "en") {
            await page.goto(`${BASE}/#/targets`);
            await page.waitForTimeout(500);
            await shot(page, "targets-en.png");
          }
        });
      }
    }

    await t.test("the page raised no error", () => {
      assert.deepEqual(pageErrors, [], "the UI raised no uncaught error");
    });
  } finally {
    await close();
  }
});
