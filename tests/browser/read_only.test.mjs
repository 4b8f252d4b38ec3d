// A read-only data folder, in a real browser: a server of its own on a
// tmpfs that is remounted read-only once the server was killed
// mid-campaign, then started again on it. Every page says at its top, in
// the reader's language, that the data folder is read-only and what to do;
// saved data shows; a change (a new target) is refused with the database's
// own words and nothing is added. In Chinese, then in English; screenshots
// go to docs/screenshots/. The test command runs as root (mount needs it).

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { audit, describeViolations, launch, ROOT, serveOwn, setLanguage } from "./helpers.mjs";

const run = promisify(execFile);
const SHOTS = join(ROOT, "docs/screenshots");
const KEY = `read-only-test-${process.pid}-${Date.now()}`;
const TARGET = "Read-only drill target";
const CAMPAIGN = "Read-only drill campaign";

const WORDS = {
  zh: {
    title: "数据目录是只读的：现在无法做任何修改。",
    body: "请让数据目录可写，然后重新启动 AgentEval。",
    refused: "数据库是只读的",
  },
  en: {
    title: "The data folder is read-only: nothing can be changed.",
    body: "make the data folder writable, then restart AgentEval.",
    refused: "the database is read-only",
  },
};

/** The folder (a tmpfs of its own) and the server on it, made in `before`. */
const env = { dir: "", data: "", server: null };

/** Starts `agenteval serve` on the data folder. */
async function startServe() {
  env.server = await serveOwn({ key: KEY, args: ["--data-dir", env.data, "--no-patrol"], log: join(env.dir, "serve.log") });
}

const call = (path, init) => env.server.call(path, init);

before(async () => {
  await mkdir(SHOTS, { recursive: true });
  env.dir = await mkdtemp("/tmp/agenteval-read-only-");
  env.data = join(env.dir, "data");
  await mkdir(env.data);
  await run("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", env.data]);
  await startServe();
  const target = await call("/api/targets", { method: "POST", body: JSON.stringify({ name: TARGET, channel: { kind: "builtin", agent: "demo" } }) });
  const [scenario] = await call("/api/scenarios");
  await call("/api/campaigns", { method: "POST", body: JSON.stringify({ name: CAMPAIGN, target_id: target.id, scenario_ids: [scenario.id], duration_hours: 1 }) });
  await env.server.stop("SIGKILL");
  await run("mount", ["-o", "remount,ro", env.data]);
  await startServe();
  assert.equal((await call("/api/health")).database, "read_only");
});

after(async () => {
  await env.server?.stop("SIGKILL");
  if (env.data) await run("umount", ["-l", env.data]).catch(() => undefined);
  if (env.dir) await rm(env.dir, { recursive: true, force: true });
});

for (const lang of ["zh", "en"]) {
  test(`${lang}: a read-only data folder is said on every page, its data shows and a change is refused`, { timeout: 120_000 }, async () => {
    const w = WORDS[lang];
    const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    try {
      await page.goto(`${env.server.base}/?key=${encodeURIComponent(KEY)}#/campaigns`);
      await setLanguage(page, lang);
      const banner = page.getByTestId("database-banner");
      await banner.waitFor({ timeout: 15_000 });
      assert.equal(await banner.getAttribute("data-state"), "read_only");
      const said = await banner.innerText();
      assert.ok(said.includes(w.title) && said.includes(w.body), `the banner says it in ${lang}: ${said}`);
      // What was saved before shows.
      await page.getByTestId("campaign-table").getByText(CAMPAIGN).waitFor({ timeout: 15_000 });
      const violations = await audit(page);
      assert.deepEqual(violations, [], describeViolations(violations));
      await page.screenshot({ path: join(SHOTS, `read-only-${lang}.png`) });

      // A change: refused with the database's words, the banner still there.
      await page.getByTestId("nav-targets").click();
      await page.getByText(TARGET).first().waitFor();
      await page.getByTestId("target-kind").locator("label").nth(2).click();
      await page.getByTestId("target-name").fill(`${TARGET} 2`);
      await page.getByTestId("target-submit").click();
      const error = page.getByTestId("error-alert");
      await error.waitFor({ timeout: 15_000 });
      assert.equal(await error.getAttribute("data-code"), "DATABASE_UNAVAILABLE");
      assert.ok((await error.innerText()).includes(w.refused), `the refusal in ${lang}: ${await error.innerText()}`);
      assert.ok(await banner.isVisible(), "the banner stays");
      assert.equal(await banner.getAttribute("data-state"), "read_only", "a refused change does not say the database is unreachable");
      await page.screenshot({ path: join(SHOTS, `read-only-refused-${lang}.png`) });
      const targets = await call("/api/targets");
      assert.equal(targets.length, 1, "nothing was added");
      assert.deepEqual(pageErrors, []);
    } finally {
      await close();
    }
  });
}
