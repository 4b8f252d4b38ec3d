// The database going away and coming back, in a real browser: a team
// server of its own (`agenteval serve --database-url`) on a throwaway
// PostgreSQL (scripts/postgres.sh), not run.sh's SQLite server. A page
// loads; PostgreSQL is stopped hard; the next data the UI asks for gets
// 503 DATABASE_UNAVAILABLE and a banner at the top of the page says, in
// the reader's language, that the database cannot be reached, that
// nothing saved is lost and that the app retries by itself; the page
// keeps its header, navigation and title, even after a reload. PostgreSQL
// starts again on the same port, and the banner goes away and the page's
// data shows again by themselves, without reloading the page. In Chinese,
// then in English; screenshots go to docs/screenshots/.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmod, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { audit, describeViolations, launch, ROOT, serveOwn, setLanguage } from "./helpers.mjs";

const run = promisify(execFile);
const SHOTS = join(ROOT, "docs/screenshots");
const KEY = `degraded-test-${process.pid}-${Date.now()}`;
const TARGET = "Outage drill target";
const CAMPAIGN = "Outage drill campaign";

const WORDS = {
  zh: {
    title: "数据库暂时无法访问（可能正在重启）。",
    body: "已保存的数据不会丢失，页面会自动重试，数据库恢复后立即重新显示本页数据。",
    campaigns: "活动",
    waiting: "等待数据库恢复",
  },
  en: {
    title: "The database cannot be reached right now (it may be restarting).",
    body: "Nothing saved is lost. The app retries by itself and shows this page's data again as soon as the database answers.",
    campaigns: "Campaigns",
    waiting: "Waiting for the database",
  },
};

/** The throwaway PostgreSQL and the server on it, made in `before`. */
const env = { pgDir: "", pgPort: "", dataDir: "", server: null };

/** A command run as the owner of the cluster: `postgres` when root (initdb refuses root). */
function asOwner(cmd, args) {
  return process.getuid?.() === 0 ? run("runuser", ["-u", "postgres", "--", cmd, ...args]) : run(cmd, args);
}

/** pg_ctl of the newest PostgreSQL installed (scripts/postgres.sh installs one when none is). */
async function pgCtl() {
  const versions = (await readdir("/usr/lib/postgresql").catch(() => [])).sort((a, b) => Number(b) - Number(a));
  assert.ok(versions.length > 0, "PostgreSQL is installed under /usr/lib/postgresql");
  return `/usr/lib/postgresql/${versions[0]}/bin/pg_ctl`;
}

async function stopPostgres() {
  await asOwner(await pgCtl(), ["-D", join(env.pgDir, "data"), "stop", "-m", "immediate", "-w"]);
}

async function startPostgres() {
  await asOwner(await pgCtl(), ["-D", join(env.pgDir, "data"), "start", "-w", "-l", join(env.pgDir, "server.log"), "-o", `-p ${env.pgPort}`]);
}

const call = (path, init) => env.server.call(path, init);

before(async () => {
  await mkdir(SHOTS, { recursive: true });
  // A folder the `postgres` user can reach when the tests run as root.
  env.pgDir = await mkdtemp("/tmp/agenteval-degraded-pg-");
  await chmod(env.pgDir, 0o755);
  // The watcher (--stop-after) stops PostgreSQL should this process die before `after`.
  const { stdout } = await run("bash", [join(ROOT, "scripts/postgres.sh"), "start", env.pgDir, "--stop-after", String(process.pid)], { timeout: 300_000 });
  const url = stdout.trim().split("\n").pop();
  env.pgPort = new URL(url).port;
  assert.match(env.pgPort, /^\d+$/, `postgres.sh printed a URL with a port: ${url}`);

  env.dataDir = await mkdtemp("/tmp/agenteval-degraded-data-");
  env.server = await serveOwn({
    key: KEY,
    args: ["--database-url", url, "--data-dir", join(env.dataDir, "data"), "--no-patrol"],
    log: join(env.dataDir, "serve.log"),
  });

  const target = await call("/api/targets", { method: "POST", body: JSON.stringify({ name: TARGET, channel: { kind: "builtin", agent: "demo" } }) });
  const [scenario] = await call("/api/scenarios");
  await call("/api/campaigns", { method: "POST", body: JSON.stringify({ name: CAMPAIGN, target_id: target.id, scenario_ids: [scenario.id], duration_hours: 1 }) });
});

after(async () => {
  await env.server?.stop();
  if (env.pgDir) await run("bash", [join(ROOT, "scripts/postgres.sh"), "stop", env.pgDir, "--remove"]);
  if (env.dataDir) await rm(env.dataDir, { recursive: true, force: true });
});

for (const lang of ["zh", "en"]) {
  test(`${lang}: the database going away shows a banner, and its return clears it without a reload`, { timeout: 180_000 }, async (t) => {
    const w = WORDS[lang];
    const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    try {
      await page.goto(`${env.server.base}/?key=${encodeURIComponent(KEY)}#/targets`);
      await setLanguage(page, lang);
      await page.getByTestId("nav-targets").waitFor();
      await page.getByText(TARGET).first().waitFor();
      const banner = page.getByTestId("database-banner");
      assert.equal(await banner.count(), 0, "no banner while the database answers");

      await stopPostgres();
      assert.equal((await call("/api/health", { expect: 503 })).database, "unavailable", "the server sees the database gone");
      // The next data the UI asks for: the campaign list.
      await page.getByTestId("nav-campaigns").click();
      await banner.waitFor({ timeout: 15_000 });
      assert.equal(await banner.getAttribute("role"), "alert", "the banner is announced");
      const said = await banner.innerText();
      assert.ok(said.includes(w.title) && said.includes(w.body), `the banner says it in ${lang}: ${said}`);
      // The rest of the page is still there: header, navigation, the view's title.
      assert.ok(await page.getByTestId("nav-targets").isVisible(), "the navigation stays");
      assert.ok(await page.getByRole("heading", { name: w.campaigns, exact: true }).isVisible(), "the view's title stays");
      assert.equal(await page.getByTestId("campaign-table").count(), 0, "the campaigns could not be read");
      // Where the campaigns would be: a calm word of waiting, not an error that asks to send again.
      const notice = page.getByTestId("error-alert");
      await notice.waitFor();
      assert.equal(await notice.getAttribute("data-code"), "DATABASE_UNAVAILABLE");
      assert.ok((await notice.innerText()).includes(w.waiting), `the view waits in ${lang}: ${await notice.innerText()}`);

      // A reload while the database is down: the page is not blank, the banner is back.
      await page.reload();
      await banner.waitFor({ timeout: 15_000 });
      assert.ok(await page.getByRole("heading", { name: w.campaigns, exact: true }).isVisible(), "the view's title after a reload");
      // The health check is asked meanwhile and still says the database is down.
      await page.waitForTimeout(4000);
      assert.ok(await banner.isVisible(), "the banner stays while the database is down");
      const violations = await audit(page);
      assert.deepEqual(violations, [], describeViolations(violations));
      await page.screenshot({ path: join(SHOTS, `database-unavailable-${lang}.png`) });

      // Whether the page reloads: a mark a reload would wipe.
      await page.evaluate(() => {
        window.__sameDocument = true;
      });
      const back = Date.now();
      await startPostgres();
      await banner.waitFor({ state: "detached", timeout: 30_000 });
      await page.getByTestId("campaign-table").getByText(CAMPAIGN).waitFor({ timeout: 15_000 });
      assert.equal(await page.evaluate(() => window.__sameDocument === true), true, "the data came back without a reload of the page");
      t.diagnostic(`${lang}: the data showed again ${Date.now() - back} ms after PostgreSQL was started`);
      assert.equal(await page.getByTestId("error-alert").count(), 0, "no error is left once the database answers");
      await page.screenshot({ path: join(SHOTS, `database-back-${lang}.png`) });
      assert.deepEqual(pageErrors, []);
    } finally {
      await close();
      // The next test starts with the database up, whatever happened here.
      await startPostgres().catch(() => undefined);
    }
  });
}
