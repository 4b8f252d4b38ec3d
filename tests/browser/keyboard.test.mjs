// The UI for people who do not use a mouse or who need it larger, in a
// real browser against `agenteval serve` on the demo data: the main flow
// by keyboard alone with a visible focus (create a campaign, open a
// report, move between its tabs, open a session from a finding, close with
// Escape and land back where one was), status in words, charts with a
// text alternative, reduced motion, a doubled font size and 200 % zoom.

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { BASE, LANGS, assertNothingClipped, findCampaign, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = process.env.AGENTEVAL_TMP ? join(process.env.AGENTEVAL_TMP, "shots") : null;

async function shot(page, name) {
  if (!SHOTS) return;
  await mkdir(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, name) });
}

/** The finished demo campaign: runs with tags, sessions with judge findings that cite a round. */
function findDemo() {
  return findCampaign(
    (r) => r.fixed.runs_finished > 0 && r.fixed.per_tag.length > 0 && (r.exploration?.findings ?? []).some((f) => f.turn),
    "a finished demo campaign with runs and judge findings",
  );
}

/** What has the focus: its test id, text and whether a focus ring shows. */
function focused(page) {
  return page.evaluate(() => {
    const a = document.activeElement;
    if (!(a instanceof HTMLElement) || a === document.body) return { testId: null, text: "", ring: false };
    const cs = getComputedStyle(a);
    const ring = a.matches(":focus-visible") && ((cs.outlineStyle !== "none" && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== "none");
    return { testId: a.dataset.testid ?? a.closest("[data-testid]")?.getAttribute("data-testid") ?? null, own: a.dataset.testid ?? null, text: (a.textContent ?? "").trim(), ring };
  });
}

/** Presses Tab until the control with this test id (and text, if given) has the focus. */
async function tabTo(page, testId, text = null, max = 120) {
  for (let i = 0; i < max; i++) {
    const f = await focused(page);
    if (f.own === testId && (text === null || f.text.includes(text))) return f;
    await page.keyboard.press("Tab");
  }
  assert.fail(`Tab never reached [${testId}]${text ? ` "${text}"` : ""}`);
}

/** The focus is on this control and shows a ring. */
async function assertFocusOn(page, testId, where) {
  await page.waitForFunction((id) => document.activeElement instanceof HTMLElement && document.activeElement.dataset.testid === id, testId);
  const f = await focused(page);
  assert.ok(f.ring, `${where}: the focused [${testId}] shows a visible focus ring`);
  return f;
}

test("the campaign-to-session flow by keyboard alone, in both languages", { timeout: 300_000 }, async (t) => {
  const demo = await findDemo();
  const id = demo.campaign.id;
  const { page, pageErrors, close } = await launch();
  try {
    await signIn(page);
    for (const lang of LANGS) {
      await t.test(`[${lang}] create, report, tabs, finding, session, Escape back`, async () => {
        await page.goto(`${BASE}/#/campaigns`);
        await setLanguage(page, lang);
        await page.getByTestId("campaign-table").waitFor();

        // Create a campaign: the form opens, is filled and submitted from the keyboard.
        await tabTo(page, "new-campaign");
        await assertFocusOn(page, "new-campaign", "campaign list");
        await page.keyboard.press("Enter");
        await page.getByTestId("campaign-name").waitFor();
        await tabTo(page, "campaign-name");
        const name = `Keyboard ${lang} ${Date.now()}`;
        await page.keyboard.type(name);
        await page.getByTestId("scenario-option").first().waitFor();
        await tabTo(page, "scenario-option");
        await page.keyboard.press("Space");
        assert.ok(await page.getByTestId("scenario-option").first().isChecked(), "Space ticks the first scenario");
        await tabTo(page, "campaign-submit");
        await assertFocusOn(page, "campaign-submit", "campaign form");
        await page.keyboard.press("Enter");
        await page.waitForURL(/#\/campaigns\/[^/]+$/);
        await page.getByTestId("campaign-title").filter({ hasText: name }).waitFor();
        assert.equal(await page.getByTestId("campaign-name").count(), 0, "the form closed on creation");

        // Back to the list, then into the demo campaign by its link.
        await tabTo(page, "back-to-list");
        await page.keyboard.press("Enter");
        await page.getByTestId("campaign-table").waitFor();
        await tabTo(page, "campaign-link", demo.campaign.name);
        await assertFocusOn(page, "campaign-link", "campaign list");
        await page.keyboard.press("Enter");
        await page.waitForURL(new RegExp(`#/campaigns/${id}$`));
        await page.getByTestId("runs-table").waitFor();

        // The report, and its tabs walked with the arrow keys.
        await tabTo(page, "open-report");
        await assertFocusOn(page, "open-report", "campaign view");
        await page.keyboard.press("Enter");
        await page.getByTestId("report-tabs").waitFor();
        await tabTo(page, "tab-scores");
        for (const tab of ["scenarios", "charts", "analysis", "comparison", "exploration"]) {
          await page.keyboard.press("ArrowRight");
          await assertFocusOn(page, `tab-${tab}`, "report tabs");
          await page.waitForURL(new RegExp(`/report/${tab}$`));
        }
        await page.getByTestId("judge-findings").waitFor();

        // A finding opens its session at the round it cites; Escape comes back to it.
        const finding = await tabTo(page, "finding-link");
        await assertFocusOn(page, "finding-link", "exploration tab");
        await page.keyboard.press("Enter");
        await page.waitForURL(/\/sessions\/[^/?]+\?turn=\d+$/);
        await page.getByTestId("session-conversation").waitFor();
        await page.getByTestId("turn-highlighted").first().waitFor();
        await shot(page, `keyboard-session-${lang}.png`);
        await page.keyboard.press("Escape");
        await page.waitForURL(new RegExp(`#/campaigns/${id}/report/exploration$`));
        await page.waitForFunction(
          (text) => document.activeElement instanceof HTMLElement && document.activeElement.dataset.testid === "finding-link" && (document.activeElement.textContent ?? "").trim() === text,
          finding.text,
        );
        await assertFocusOn(page, "finding-link", "back from the session");

        // Escape closes the report: the focus is back on the button that opened it.
        await page.keyboard.press("Escape");
        await page.waitForURL(new RegExp(`#/campaigns/${id}$`));
        await assertFocusOn(page, "open-report", "back from the report");
        assert.equal(await page.getByTestId("report-tabs").count(), 0, "the report drawer is closed");
      });
    }
    assert.deepEqual(pageErrors, [], "no uncaught errors in the page");
  } finally {
    await close();
  }
});

test("status is told in words, and every chart has its table and a summary", { timeout: 300_000 }, async (t) => {
  const demo = await findDemo();
  const id = demo.campaign.id;
  const { page, close } = await launch();
  try {
    await signIn(page);
    for (const lang of LANGS) {
      await t.test(`[${lang}] badges carry words; charts read as text`, async () => {
        await page.goto(`${BASE}/#/campaigns`);
        await setLanguage(page, lang);
        for (const [where, hash, ready] of [
          ["campaign list", "#/campaigns", "campaign-table"],
          ["campaign view", `#/campaigns/${id}`, "runs-table"],
          ["exploration tab", `#/campaigns/${id}/report/exploration`, "judge-findings"],
        ]) {
          await page.goto(`${BASE}/${hash}`);
          await page.getByTestId(ready).first().waitFor();
          const wordless = await page.evaluate(() =>
            [...document.querySelectorAll(".mantine-Badge-root, [role=progressbar]")]
              .filter((b) => b instanceof HTMLElement && b.offsetParent !== null)
              .filter((b) => !(b.textContent ?? "").trim() && !b.getAttribute("aria-label"))
              .map((b) => b.outerHTML.slice(0, 120)),
          );
          assert.deepEqual(wordless, [], `${where}: every badge and progress bar says what it shows in words`);
        }

        await page.goto(`${BASE}/#/campaigns/${id}/report/charts`);
        const verdicts = page.getByTestId("chart-verdicts");
        await verdicts.waitFor();
        // (A figure may draw its figures in more than one chart: the tasks per group do.)
        assert.ok((await page.locator(".recharts-responsive-container").count()) > 0, "the tab draws charts");
        const bare = await page.locator(".recharts-responsive-container").evaluateAll((els) => els.filter((el) => !el.closest("figure [role=img][aria-label]")).length);
        assert.equal(bare, 0, "every chart is in a figure with a text alternative");
        const summary = await verdicts.getByTestId("chart-summary").getAttribute("aria-label");
        for (const n of [demo.fixed.passed, demo.fixed.failed, demo.fixed.errors]) {
          assert.match(summary, new RegExp(`\\b${n.toLocaleString(lang === "zh" ? "zh-CN" : "en")}\\b`), `the verdict chart's summary "${summary}" names ${n}`);
        }
        // The table opens from the keyboard and holds the figures the chart draws.
        await verdicts.getByTestId("chart-table-toggle").focus();
        await page.keyboard.press("Enter");
        const rows = verdicts.getByTestId("chart-table").locator("tbody tr");
        assert.equal(await rows.count(), 3, "passed, failed, errors");
        const cells = await rows.locator("td:nth-child(2)").allTextContents();
        assert.deepEqual(cells.map((c) => Number(c.replace(/[^\d]/g, ""))), [demo.fixed.passed, demo.fixed.failed, demo.fixed.errors]);
        assert.equal(await verdicts.getByTestId("chart-table-toggle").getAttribute("aria-expanded"), "true");
        const tags = page.getByTestId("chart-tags");
        await tags.getByTestId("chart-table-toggle").click();
        assert.equal(await tags.getByTestId("chart-table").locator("tbody tr").count(), demo.fixed.per_tag.length, "one row per tag");
      });
    }
  } finally {
    await close();
  }
});

test("reduced motion turns transitions off; a doubled font size and 200 % zoom stay usable", { timeout: 300_000 }, async (t) => {
  const demo = await findDemo();
  const id = demo.campaign.id;
  const session = demo.exploration.findings.find((f) => f.turn).session_id;

  await t.test("menus open and charts draw without animation when the system asks for reduced motion", async () => {
    const { page, close } = await launch();
    try {
      await signIn(page);
      /** The export menu's transition, and whether the verdict chart still moves after it appeared. */
      const motion = async () => {
        await page.goto(`${BASE}/#/campaigns/${id}`);
        await page.getByTestId("export-menu").click();
        const dropdown = page.locator(".mantine-Menu-dropdown");
        await dropdown.waitFor();
        const menu = await dropdown.evaluate((el) => getComputedStyle(el).transitionDuration);
        await page.keyboard.press("Escape");
        await page.goto(`${BASE}/#/campaigns/${id}/report/charts`);
        const sector = page.getByTestId("chart-verdicts").locator(".recharts-pie-sector path").first();
        await sector.waitFor();
        const first = await sector.getAttribute("d");
        await page.waitForTimeout(2000);
        const moved = first !== (await sector.getAttribute("d"));
        await page.goto(`${BASE}/#/campaigns`);
        return { menu, moved };
      };
      await page.emulateMedia({ reducedMotion: "no-preference" });
      const normal = await motion();
      assert.notEqual(normal.menu, "0s", "without the preference, the menu fades in");
      assert.ok(normal.moved, "without the preference, the chart grows into place");
      await page.emulateMedia({ reducedMotion: "reduce" });
      const reduced = await motion();
      assert.equal(reduced.menu, "0s", "with reduced motion, the menu appears at once");
      assert.ok(!reduced.moved, "with reduced motion, the chart is drawn at once");
    } finally {
      await close();
    }
  });

  await t.test("the system's font size doubled: the text grows and none is cut", async () => {
    const { context, page, close } = await launch();
    try {
      await signIn(page);
      const cdp = await context.newCDPSession(page);
      await cdp.send("Page.setFontSizes", { fontSizes: { standard: 32, fixed: 26 } });
      for (const lang of LANGS) {
        await setLanguage(page, lang);
        await page.goto(`${BASE}/#/campaigns/${id}`);
        await page.getByTestId("runs-table").waitFor();
        const px = await page.getByTestId("campaign-title").evaluate((el) => parseFloat(getComputedStyle(document.body).fontSize));
        assert.equal(px, 32, "the body text follows the browser's font size");
        await assertNothingClipped(page, `[${lang}] campaign view at a 32 px font`);
        await shot(page, `font32-campaign-${lang}.png`);
      }
    } finally {
      await close();
    }
  });

  await t.test("200 % zoom (1280x800 at twice the size): no sideways scrolling, the menu folds", async () => {
    const { page, close } = await launch({ viewport: { width: 640, height: 400 }, deviceScaleFactor: 2 });
    try {
      await signIn(page);
      for (const lang of LANGS) {
        await setLanguage(page, lang);
        for (const [where, hash, ready] of [
          ["campaign list", "#/campaigns", "campaign-table"],
          ["campaign view", `#/campaigns/${id}`, "runs-table"],
          ["report: exploration", `#/campaigns/${id}/report/exploration`, "judge-findings"],
          ["session", `#/campaigns/${id}/sessions/${session}`, "session-conversation"],
        ]) {
          await page.goto(`${BASE}/${hash}`);
          await page.getByTestId(ready).first().waitFor();
          await page.waitForTimeout(300);
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(overflow <= 1, `[${lang}] ${where}: the page does not scroll sideways at 200 % (${overflow}px too wide)`);
          await shot(page, `zoom200-${where.replace(/[^a-z]+/g, "-")}-${lang}.png`);
        }
        // The navigation folds behind a named menu button, which opens it.
        await page.goto(`${BASE}/#/campaigns`);
        await page.getByTestId("campaign-table").waitFor();
        /** Whether the navigation shows on screen and can take the focus. */
        const navShown = () =>
          page.getByTestId("nav-targets").evaluate((el) => el.getBoundingClientRect().right > 0 && !el.closest("[inert]"));
        assert.equal(await navShown(), false, "the navigation is folded away (and out of the Tab order) at 200 %");
        const menu = page.getByTestId("nav-menu");
        assert.ok(await menu.getAttribute("aria-label"), "the menu button has a name");
        await menu.focus();
        await page.keyboard.press("Enter");
        assert.equal(await menu.getAttribute("aria-expanded"), "true");
        await page.waitForFunction(() => document.querySelector('[data-testid="nav-targets"]')?.getBoundingClientRect().left >= 0);
        assert.equal(await navShown(), true, "the menu button unfolds the navigation");
        await page.getByTestId("nav-targets").click();
        await page.waitForURL(/#\/targets$/);
        await page.waitForFunction(() => document.querySelector('[data-testid="nav-targets"]')?.closest("[inert]"));
        assert.equal(await navShown(), false, "going somewhere folds the navigation again");
      }
    } finally {
      await close();
    }
  });
});
