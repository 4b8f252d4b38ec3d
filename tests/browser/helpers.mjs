// What the browser tests share: the server run.sh started, a Chromium
// launched on its own profile, the UI language, the served demo campaign.
// (Not a test file: node --test picks up only `*.test.mjs` here.)

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { openSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(new URL("../../ui/package.json", import.meta.url));
const { chromium } = require("playwright-core");
const AXE = require.resolve("axe-core/axe.min.js");

export const BASE = process.env.AGENTEVAL_URL;
export const KEY = process.env.AGENTEVAL_KEY;
export const LANGS = ["en", "zh"];
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The agenteval binary run.sh built (it passes AGENTEVAL_BIN). */
export const BIN = process.env.AGENTEVAL_BIN || join(ROOT, "target/debug/agenteval");

/** A port of 127.0.0.1 nobody listens on. */
export async function freePort() {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  server.close();
  await once(server, "close");
  return port;
}

/**
 * A server of a test's own, beside run.sh's: `agenteval serve` with `args`
 * (its data folder, its database...) on a free port of 127.0.0.1, with
 * `key` and the built UI, its output appended to the file `log`, `env` its
 * environment. Resolves once /api/health answers, with its `base` URL, its
 * `child` process, `call(path, { expect })` to its API (`expect` is the
 * status it must answer) and `stop(signal)`, which waits for it to exit.
 */
export async function serveOwn({ key, args, log, env = process.env }) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const out = openSync(log, "a");
  const child = spawn(BIN, ["serve", ...args, "--bind", `127.0.0.1:${port}`, "--api-key", key, "--ui-dir", join(ROOT, "ui/dist")], {
    env,
    stdio: ["ignore", out, out],
  });
  const said = () => readFile(log, "utf8").catch(() => "(no server log)");
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) assert.fail(`agenteval serve exited (${child.exitCode}):\n${await said()}`);
    if (await fetch(`${base}/api/health`).then((r) => r.ok, () => false)) break;
    if (i > 300) {
      child.kill("SIGKILL");
      assert.fail(`agenteval serve did not answer /api/health:\n${await said()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    child,
    async call(path, { expect = 200, ...init } = {}) {
      const res = await fetch(base + path, { ...init, headers: { "X-API-Key": key, "Content-Type": "application/json", ...(init.headers ?? {}) } });
      assert.equal(res.status, expect, `${init.method ?? "GET"} ${path} answers ${expect}`);
      return res.json();
    },
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill(signal);
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A request to the served API with the key; `expect` is the status it must answer. */
export async function api(path, { expect = 200, ...init } = {}) {
  const res = await fetch(BASE + path, { ...init, headers: { "X-API-Key": KEY, "Content-Type": "application/json", ...(init.headers ?? {}) } });
  assert.equal(res.status, expect, `${init.method ?? "GET"} ${path} answers ${expect}`);
  return res.json();
}

/** The first served campaign whose report satisfies `wanted` (run.sh serves a finished demo campaign). */
export async function findCampaign(wanted, what) {
  for (const c of await api("/api/campaigns")) {
    const report = await api(`/api/campaigns/${c.id}/report`);
    if (wanted(report)) return report;
  }
  assert.fail(`the served data holds ${what} (run.sh runs \`agenteval demo\` first)`);
}

/**
 * Headless Chromium on a fresh profile; `close` ends it and removes the
 * profile. `options` go to playwright (viewport, deviceScaleFactor...).
 */
export async function launch(options = {}) {
  assert.ok(BASE && KEY, "run.sh passes AGENTEVAL_URL and AGENTEVAL_KEY");
  const userDataDir = await mkdtemp(join(tmpdir(), "agenteval-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    ...options,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  const pageErrors = [];
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  return {
    context,
    page,
    pageErrors,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Opens the campaign list with the key, which travels once in the URL and then stays in the browser. */
export async function signIn(page) {
  await page.goto(`${BASE}/?key=${encodeURIComponent(KEY)}#/campaigns`);
  await page.getByTestId("campaign-table").waitFor();
}

/** Switches the UI language (kept in the browser) and reloads. */
export async function setLanguage(page, lang) {
  await page.evaluate((l) => window.localStorage.setItem("agenteval.language", l), lang);
  await page.reload();
  await page.locator("html").evaluate(() => undefined);
}

/**
 * Text cut off: among badges, buttons, table cells, tab labels, titles and
 * labels, every visible element whose content is wider than its box.
 */
export async function clipped(page) {
  return page.evaluate(() => {
    const SELECTOR = [
      ".mantine-Badge-root",
      ".mantine-Badge-label",
      ".mantine-Button-root",
      ".mantine-Button-label",
      ".mantine-Tabs-tab",
      ".mantine-Tabs-tabLabel",
      ".mantine-NavLink-label",
      ".mantine-SegmentedControl-label",
      ".mantine-Drawer-title",
      ".mantine-Modal-title",
      ".mantine-Title-root",
      ".mantine-InputWrapper-label",
      "td",
      "th",
      "h1",
      "h2",
      "h3",
      "h4",
      "h5",
    ].join(",");
    const out = [];
    for (const el of document.querySelectorAll(SELECTOR)) {
      if (!(el instanceof HTMLElement) || el.clientWidth === 0) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || getComputedStyle(el).visibility === "hidden") continue;
      // A scrolling region is not clipped text.
      if (el.closest(".mantine-ScrollArea-viewport") && el.scrollWidth > el.clientWidth + 1 && el.tagName === "TD") continue;
      if (el.scrollWidth > el.clientWidth + 1) {
        const testId = el.closest("[data-testid]")?.getAttribute("data-testid") ?? "";
        const cls = [...el.classList].find((c) => c.startsWith("mantine-")) ?? el.tagName.toLowerCase();
        out.push(`${cls} in [${testId}] "${(el.textContent ?? "").trim().slice(0, 50)}" (content ${el.scrollWidth}px > box ${el.clientWidth}px)`);
      }
    }
    return out;
  });
}

export async function assertNothingClipped(page, where) {
  const found = await clipped(page);
  assert.deepEqual(found, [], `clipped text on ${where}:\n${found.join("\n")}`);
}

/**
 * Serious and critical violations of WCAG 2 A/AA on the page as it is now,
 * by axe-core (pinned in ui/package.json). The page must be launched with
 * `bypassCSP: true`: the UI's content security policy refuses the script.
 */
export async function audit(page) {
  await page.addScriptTag({ path: AXE });
  const results = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1, 2).join("") ?? ""}`) }));
  });
  return results.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** axe-core's violations in a few lines each, for an assertion message. */
export function describeViolations(violations) {
  return violations.map((v) => `${v.impact} ${v.id} (${v.help}), ${v.nodes.length} node(s):\n    ${v.nodes.slice(0, 5).join("\n    ")}`).join("\n");
}

/**
 * The WCAG contrast of a control's text against its own background while
 * the pointer is over it (axe-core reads the page at rest only). The
 * background must be opaque, as a hovered button's tint is.
 */
export async function hoverContrast(locator) {
  await locator.hover();
  await locator.page().waitForTimeout(300);
  return locator.evaluate((el) => {
    const style = getComputedStyle(el);
    const rgb = (css) => css.match(/[\d.]+/g).slice(0, 3).map(Number);
    const luminance = (css) => {
      const [r, g, b] = rgb(css).map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [hi, lo] = [luminance(style.color), luminance(style.backgroundColor)].sort((a, b) => b - a);
    return { ratio: (hi + 0.05) / (lo + 0.05), color: style.color, background: style.backgroundColor };
  });
}
