// A large campaign in the app: 100,000 fixed runs and 10,000 exploration
// sessions (`agenteval bench report` writes them straight through the real
// schema into a folder of this test's own), served by an `agenteval serve`
// of its own. The campaign list, the campaign view, every report tab, a
// filter and the next page of runs, a run drawer (from the table, from a
// report link and by its own link), the sessions, the exploration window
// and the Markdown export are each timed in Chromium at 1280x800, in
// Chinese, then the campaign view in English. The figures are printed, one
// line each (`large campaign: <what> <ms> ms`), never asserted; what is
// asserted is the behaviour a large campaign needs: one page of rows in the
// DOM, the totals of all rows, the drawer's turns, the tables behind a
// drawer left as they were, a whole Markdown file, and no view that asks
// the server for every run or every session (a run opened by its link
// asks for that run alone).
// The server's memory (VmRSS, and its peak VmHWM) is printed before the app
// opens, after every view, after them all twice more and after the run
// link. LARGE_CAMPAIGN_CALLS=1 also prints each step's API calls with their
// sizes and times.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { BIN, launch, ROOT, serveOwn, setLanguage } from "./helpers.mjs";

const SHOTS = join(ROOT, "docs", "screenshots");
const RUNS = 100_000;
const SESSIONS = 10_000;
const RUNS_PAGE = 50;
const SESSIONS_PAGE = 25;
const KEY = "large-campaign-key";
/** A turn of a conversation, lit or not. */
const TURN = '[data-testid="turn"], [data-testid="turn-highlighted"]';

/** The server's resident memory now and at its peak, in MB (from /proc). */
async function memory(pid) {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

test("a campaign of 100,000 runs and 10,000 sessions is usable in the app", { timeout: 600_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), "agenteval-large-"));
  const dataDir = join(work, "data");
  const downloads = join(work, "downloads");
  await mkdir(downloads);
  const figure = (what, ms, extra = "") => console.log(`large campaign: ${what} ${Math.round(ms)} ms${extra ? ` ${extra}` : ""}`);

  const started = performance.now();
  await promisify(execFile)(BIN, ["bench", "report", "--runs", String(RUNS), "--sessions", String(SESSIONS), "--repeat", "1", "--data-dir", dataDir], {
    maxBuffer: 16 << 20,
  });
  figure("generate the data (bench report, one timing pass)", performance.now() - started);

  const server = await serveOwn({ key: KEY, args: ["--data-dir", dataDir], log: join(work, "serve.log") });
  const { base } = server;
  const api = (path) => server.call(path);
  const printMemory = async (when) => {
    const m = await memory(server.child.pid);
    console.log(`large campaign: server memory ${when}: VmRSS ${m.rss.toFixed(1)} MB, peak VmHWM ${m.peak.toFixed(1)} MB`);
    return m;
  };
  const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  try {
    const [campaign] = await api("/api/campaigns");
    const report = await api(`/api/campaigns/${campaign.id}/report`);
    const total = report.fixed.runs_planned;
    assert.ok(total >= RUNS, `the campaign holds the ${RUNS} generated runs (and the one its plan ran): ${total}`);
    assert.equal(report.exploration.sessions_total, SESSIONS);
    await printMemory("before the app opens");

    // Every API answer the page receives, so that each step says what it
    // cost the server and no view asks for every run or session.
    const answers = [];
    const isApi = (req) => {
      const { pathname } = new URL(req.url());
      return pathname.startsWith("/api/") && pathname !== "/api/events";
    };
    let inFlight = 0;
    page.on("request", (req) => isApi(req) && (inFlight += 1));
    page.on("requestfailed", (req) => isApi(req) && (inFlight -= 1));
    /** Waits until no API call has been under way for 300 ms (what the last step set off has landed). */
    const settle = async () => {
      for (let quiet = 0; quiet < 300; quiet = inFlight === 0 ? quiet + 50 : 0) await new Promise((r) => setTimeout(r, 50));
    };
    page.on("requestfinished", async (req) => {
      if (!isApi(req)) return;
      inFlight -= 1;
      const url = new URL(req.url());
      const sizes = await req.sizes().catch(() => null);
      answers.push({ path: url.pathname + url.search, ms: req.timing().responseEnd, bytes: sizes?.responseBodySize ?? 0 });
    });
    const fullLists = new Set([`/api/campaigns/${campaign.id}/runs`, `/api/exploration/campaigns/${campaign.id}/sessions`]);
    const everything = () => answers.filter((a) => fullLists.has(a.path.split("?")[0]));
    /** Times `act` until `ready` resolves and the frame after it is painted; prints the figure and what the API sent. */
    const timed = async (what, act, ready) => {
      await settle();
      const before = answers.length;
      const t0 = performance.now();
      await act();
      await ready();
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
      const ms = performance.now() - t0;
      // Responses can land just after the paint; give them a moment to be counted.
      await new Promise((r) => setTimeout(r, 50));
      const mine = answers.slice(before);
      const bytes = mine.reduce((n, a) => n + a.bytes, 0);
      const slowest = mine.reduce((s, a) => (a.ms > (s?.ms ?? -1) ? a : s), null);
      const api = mine.length === 0 ? "(no API call)" : `(${mine.length} API call${mine.length === 1 ? "" : "s"}, ${(bytes / 1024).toFixed(0)} KB; slowest ${slowest.path.replace(campaign.id, ":id").slice(0, 70)} ${Math.round(slowest.ms)} ms)`;
      figure(what, ms, api);
      if (process.env.LARGE_CAMPAIGN_CALLS) for (const a of mine) console.log(`    ${a.path} ${a.bytes} B ${Math.round(a.ms)} ms`);
      return mine.map((a) => a.path.split("?")[0]);
    };
    const zh = (n) => n.toLocaleString("zh-CN");
    const runRows = page.getByTestId("run-row");
    const runsBody = page.getByTestId("runs-table").locator("tbody");
    const firstRows = () => runsBody.innerText();

    // The app in Chinese from its first load.
    await page.goto(`${base}/?key=${encodeURIComponent(KEY)}#/campaigns`);
    await setLanguage(page, "zh");

    await timed(
      "campaign list",
      () => page.reload(),
      () => page.getByTestId("campaign-table").getByText(campaign.name).waitFor(),
    );

    await timed(
      "campaign view, first paint of its runs and sessions",
      () => page.getByTestId("campaign-table").getByText(campaign.name).click(),
      async () => {
        await runRows.first().waitFor();
        await page.getByTestId("session-row").first().waitFor();
      },
    );
    await t.test("the runs table holds one page, and counts them all", async () => {
      const rows = await runRows.count();
      assert.ok(rows > 0 && rows <= RUNS_PAGE, `one page of runs in the DOM, not all of them: ${rows}`);
      assert.equal(await page.getByTestId("runs-total").innerText(), `共 ${zh(total)} 次运行`);
      const last = String(Math.ceil(total / RUNS_PAGE));
      await page.getByTestId("runs-pages").getByRole("button", { name: `第 ${last} 页`, exact: true }).waitFor();
      assert.match(await page.getByTestId("runs-progress-text").innerText(), new RegExp(`${zh(total)} / ${zh(total)}`));
      const sessions = await page.getByTestId("session-row").count();
      assert.ok(sessions > 0 && sessions <= SESSIONS_PAGE, `one page of sessions: ${sessions}`);
    });
    await page.screenshot({ path: join(SHOTS, "large-campaign-zh.png") });

    const page1 = await firstRows();
    await timed(
      "next page of runs",
      () => page.getByTestId("runs-pages").getByRole("button", { name: "下一页", exact: true }).click(),
      () => page.waitForFunction((before) => document.querySelector('[data-testid="runs-table"] tbody')?.innerText !== before, page1),
    );
    assert.ok(page.url().includes("page=2"), page.url());
    assert.ok((await runRows.count()) <= RUNS_PAGE);

    const failed = report.fixed.failed;
    await page.getByTestId("runs-filter-verdict").click();
    await timed(
      "filter the runs by verdict (failed)",
      () => page.getByRole("option", { name: "失败", exact: true }).click(),
      () => page.getByTestId("runs-total").getByText(`符合条件的运行 ${zh(failed)} 次`).waitFor(),
    );
    assert.ok((await runRows.count()) <= RUNS_PAGE);
    assert.ok(page.url().includes("verdict=failed") && !page.url().includes("page="), `a new filter starts at its first page: ${page.url()}`);

    const runTurns = async () => {
      const drawer = page.getByTestId("run-drawer");
      const id = await drawer.locator("[data-run-id]").getAttribute("data-run-id");
      const turns = await api(`/api/runs/${id}/turns`);
      assert.ok(turns.length > 0, "the run has turns");
      return { drawer, id, turns };
    };
    const drawerCalls = await timed(
      "open a run drawer from the table",
      () => runRows.first().click(),
      () => page.getByTestId("run-conversation").locator(TURN).first().waitFor(),
    );
    await t.test("the run drawer shows the run's turns", async () => {
      const { drawer, turns } = await runTurns();
      assert.equal(await drawer.getByTestId("run-conversation").locator(TURN).count(), turns.length);
      assert.ok((await drawer.getByTestId("check-failed").count()) > 0, "a failed run shows its failed check");
      assert.ok(!drawerCalls.some((p) => p.endsWith("/runs/search")), `the table behind the drawer keeps its filter and page: ${drawerCalls}`);
    });
    await page.screenshot({ path: join(SHOTS, "large-campaign-run-zh.png") });
    await page.keyboard.press("Escape");
    await page.getByTestId("run-drawer").waitFor({ state: "detached" });

    // Sessions: a page of them, the next one, a status filter, one open.
    const sessionRows = page.getByTestId("session-row");
    const firstSession = await sessionRows.first().getAttribute("data-session-id");
    await timed(
      "next page of sessions",
      () => page.getByTestId("sessions-pages").getByRole("button", { name: "下一页", exact: true }).click(),
      () => page.waitForFunction((id) => document.querySelector('[data-testid="session-row"]')?.getAttribute("data-session-id") !== id, firstSession),
    );
    assert.ok((await sessionRows.count()) <= SESSIONS_PAGE);
    await page.getByTestId("sessions-filter-status").click();
    let filtered;
    await timed(
      "filter the sessions by status (completed)",
      async () => {
        filtered = page.waitForResponse((r) => r.url().includes("/sessions/search?status=completed"));
        await page.getByRole("option", { name: "已完成", exact: true }).click();
      },
      async () => {
        await filtered;
        await sessionRows.first().waitFor();
      },
    );
    assert.ok((await sessionRows.count()) <= SESSIONS_PAGE);
    const sessionCalls = await timed(
      "open a session drawer",
      () => sessionRows.first().click(),
      () => page.getByTestId("session-conversation").locator(TURN).first().waitFor(),
    );
    const sid = new URL(page.url()).hash.split("/sessions/")[1]?.split("?")[0];
    const transcript = await api(`/api/exploration/sessions/${sid}/messages`);
    assert.equal(await page.getByTestId("session-conversation").locator(TURN).count(), transcript.messages.length, "the session drawer shows the session's turns");
    assert.ok(!sessionCalls.some((p) => p.endsWith("/search")), `the tables behind the drawer stay as they were: ${sessionCalls}`);
    await page.keyboard.press("Escape");
    await page.getByTestId("session-drawer").waitFor({ state: "detached" });

    // The report, tab by tab.
    await timed(
      "report: scores tab",
      () => page.getByTestId("open-report").click(),
      () => page.getByTestId("report-pass-rate").waitFor(),
    );
    const tabs = [
      ["scenarios", () => page.getByTestId("report-scenarios").waitFor()],
      ["charts", () => page.getByTestId("chart-summary").first().waitFor()],
      ["analysis", () => page.getByTestId("generate-analysis").waitFor()],
      ["comparison", () => page.getByTestId("no-comparison").or(page.getByTestId("comparison")).first().waitFor()],
      [
        "exploration",
        async () => {
          await page.getByTestId("exploration-findings").waitFor();
          await page.getByTestId("report-session-row").first().waitFor();
        },
      ],
    ];
    for (const [tab, ready] of tabs) await timed(`report: ${tab} tab`, () => page.getByTestId(`tab-${tab}`).click(), ready);
    assert.ok((await page.getByTestId("report-session-row").count()) <= 20, "the report lists one page of sessions");
    await page.screenshot({ path: join(SHOTS, "large-campaign-report-zh.png") });

    await timed(
      "report: an issue's sessions",
      () => page.getByTestId("issue-open").first().click(),
      () => page.getByTestId("evidence-sessions").getByTestId("evidence-session-row").first().waitFor(),
    );
    await page.getByTestId("evidence-sessions").locator(".mantine-Modal-close").click();
    await page.getByTestId("evidence-sessions").waitFor({ state: "detached" });

    await page.getByTestId("tab-analysis").click();
    await timed(
      "report: generate the analysis (offline template)",
      () => page.getByTestId("generate-analysis").click(),
      () => page.getByTestId("report-analysis").waitFor(),
    );

    await page.getByTestId("tab-scenarios").click();
    await timed(
      "open a run drawer from a report link (a failed check's example)",
      () => page.getByTestId("failed-check-link").first().click(),
      () => page.getByTestId("run-conversation").locator(TURN).first().waitFor(),
    );
    await page.keyboard.press("Escape");
    await page.getByTestId("run-drawer").waitFor({ state: "detached" });
    await page.keyboard.press("Escape");
    await page.getByTestId("report-drawer").waitFor({ state: "detached" });

    await printMemory("after the campaign view, its tables, drawers and report");
    // The same views again: memory that stays bounded does not grow with visits.
    for (let round = 0; round < 2; round++) {
      await page.reload();
      await runRows.first().waitFor();
      await page.getByTestId("runs-pages").getByRole("button", { name: "下一页", exact: true }).click();
      await page.getByTestId("open-report").click();
      for (const [tab, ready] of tabs) {
        await page.getByTestId(`tab-${tab}`).click();
        await ready();
      }
      await page.keyboard.press("Escape");
      await page.getByTestId("report-drawer").waitFor({ state: "detached" });
    }
    await settle();
    await printMemory("after visiting them twice more");

    // A run far from the pages seen, opened by its link (an analysis
    // citation, a URL someone sent).
    const far = (await api(`/api/campaigns/${campaign.id}/runs/search?offset=${total - 10}&limit=1`)).runs[0];
    const linkFrom = answers.length;
    await t.test("a run opened by its link does not load every run", async () => {
      await timed(
        "open a run drawer by its link (a run on no page seen)",
        () => page.evaluate(([c, r]) => (window.location.hash = `#/campaigns/${c}/runs/${r}`), [campaign.id, far.id]),
        () => page.getByTestId("run-conversation").locator(TURN).first().waitFor({ timeout: 60_000 }),
      );
      const { id, turns } = await runTurns();
      assert.equal(id, far.id);
      assert.equal(await page.getByTestId("run-conversation").locator(TURN).count(), turns.length);
      const loaded = answers.slice(linkFrom).filter((a) => everything().includes(a));
      assert.deepEqual(loaded.map((a) => `${a.path} ${(a.bytes / 1048576).toFixed(1)} MB`), [], "the drawer asks for the one run");
    });
    await page.keyboard.press("Escape");
    await page.getByTestId("run-drawer").waitFor({ state: "detached" });
    await settle();
    const fromLink = answers.slice(linkFrom);

    // The exploration window: how many seed cells no session covered yet.
    const cells = report.exploration.coverage.cells;
    const seeds = campaign.seed_set;
    const covered = new Set(cells.filter((c) => c.sessions > 0).map((c) => `${c.persona_id}/${c.goal_id}`));
    const uncovered = seeds.personas.flatMap((p) => seeds.goals.filter((g) => !covered.has(`${p.id}/${g.id}`))).length;
    await timed(
      "exploration window (uncovered cells counted)",
      () => page.getByTestId("open-explore").click(),
      () => page.getByTestId("explore-uncovered").getByText(`探索未覆盖的组合（${uncovered}）`).waitFor(),
    );
    await page.keyboard.press("Escape");
    await page.getByTestId("explore-modal").waitFor({ state: "detached" });

    // The Markdown export, downloaded.
    await page.getByTestId("export-menu").click();
    let download;
    let file;
    await timed(
      "Markdown export, downloaded",
      async () => {
        [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-md").click()]);
      },
      async () => {
        file = join(downloads, download.suggestedFilename());
        await download.saveAs(file);
      },
    );
    const size = (await stat(file)).size;
    console.log(`large campaign: Markdown export size ${(size / 1024).toFixed(0)} KB`);
    await t.test("the export is the whole Markdown report", async () => {
      const md = await readFile(file, "utf8");
      assert.ok(md.startsWith(`# 活动报告：${campaign.name}`), md.slice(0, 80));
      assert.match(md, new RegExp(`${total}|${zh(total)}`), "the export counts every run");
      assert.match(md, /## 固定场景/);
      assert.equal(Buffer.byteLength(md), size);
    });

    await printMemory("after every view (and the run link)");

    await t.test("no view asks the server for every run or every session", () => {
      const loaded = everything().filter((a) => !fromLink.includes(a));
      assert.deepEqual(loaded.map((a) => `${a.path} ${(a.bytes / 1048576).toFixed(1)} MB`), []);
    });

    // And in English: the campaign view and its totals.
    await page.goto(`${base}/#/campaigns/${campaign.id}`);
    await setLanguage(page, "en");
    await timed(
      "campaign view in English after a reload",
      () => page.reload(),
      () => runRows.first().waitFor(),
    );
    assert.equal(await page.getByTestId("runs-total").innerText(), `${total.toLocaleString("en-US")} runs`);
    await page.screenshot({ path: join(SHOTS, "large-campaign-en.png") });
    assert.deepEqual(pageErrors, []);
  } finally {
    await close();
    await server.stop();
    await rm(work, { recursive: true, force: true });
  }
});
