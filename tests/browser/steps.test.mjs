// The steps of an agent that acts, in the run drawer: the demo agent
// repeats a failing call in `office.invalid_range_retry`. A manager
// follows the failed check to the step it names and reads, in both
// languages, the tool, the arguments (folded when long), the error's code,
// message and suggestion and the time; the fold toggles are buttons the
// keyboard reaches. A step that wrote a document opens its text, and an
// answer a model made up is labelled so (both put on the demo's steps:
// its agent writes no document and no answer of it is simulated).

import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { BASE, LANGS, api, audit, clipped, describeViolations, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));
const WORDS = {
  en: {
    kind: "Recovers from tool errors",
    step: /step 2 repeats the call of DATA_QUERY/,
    stepN: "Step 2",
    turnN: "Turn 1",
    error: "Error",
    suggestion: "Suggestion",
    showAll: "Show all (10 lines)",
    showLess: "Show less",
    open: "Open document reports/late.md",
    truncated: "only its first part was kept",
    simulated: "Simulated",
  },
  zh: {
    kind: "从工具错误中恢复",
    step: /第 2 步重复了第 1 步失败的 DATA_QUERY 调用/,
    stepN: "第 2 步",
    turnN: "第 1 轮",
    error: "错误",
    suggestion: "建议",
    showAll: "展开全部（共 10 行）",
    showLess: "收起",
    open: "打开文档 reports/late.md",
    truncated: "只保留了开头部分",
    simulated: "模拟",
  },
};

/** Whether an element lies wholly within the window. */
async function inView(locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;
  });
}

test("a failed run's steps in its drawer, in both languages", { timeout: 240_000 }, async (t) => {
  await mkdir(SHOTS, { recursive: true });
  let found = null;
  for (const c of await api("/api/campaigns")) {
    const runs = await api(`/api/campaigns/${c.id}/runs`);
    const run = runs.find((r) => r.scenario_id === "office.invalid_range_retry" && r.verdict === "failed");
    if (run) {
      found = { campaign: c.id, run };
      break;
    }
  }
  assert.ok(found, "the demo campaign holds a failed run of office.invalid_range_retry");
  const check = found.run.check_results.find((c) => !c.passed && c.kind === "recovers_from_error");
  assert.ok(check, "the run failed recovers_from_error");
  assert.equal(check.step, 2, "the check names the repeated call, the turn's second step");
  const turns = await api(`/api/runs/${found.run.id}/turns`);
  const target = turns.find((x) => x.role === "target");
  const steps = target.steps;
  assert.deepEqual(
    steps.map((s) => (s.answer.kind === "error" ? s.answer.value.code : s.answer.kind)),
    ["INVALID_RANGE", "INVALID_RANGE"],
    "the demo agent repeated the identical failing call once",
  );
  const named = steps[check.step - 1];
  const runUrl = `${BASE}/#/campaigns/${found.campaign}/runs/${found.run.id}`;

  // The audit injects axe-core, which the UI's content security policy refuses.
  const { page, pageErrors, close } = await launch({ bypassCSP: true });
  try {
    await signIn(page);
    for (const lang of LANGS) {
      await t.test(lang, async () => {
        const w = WORDS[lang];
        await setLanguage(page, lang);
        await page.goto(runUrl);
        const drawer = page.getByRole("dialog");
        await drawer.getByText(w.kind).first().waitFor();
        const text = await drawer.textContent();
        assert.match(text, w.step, "the failed check names the step");
        assert.ok(!text.includes("`"), "code spans are shown as code, not between backticks");
        const shown = page.getByTestId("run-step");
        assert.deepEqual(
          await shown.evaluateAll((els) => els.map((el) => el.getAttribute("data-step"))),
          ["1-1", "1-2"],
          "each step listed, numbered within its turn",
        );
        assert.equal(await page.locator('[data-testid="run-step"][data-highlighted]').count(), 0, "no step lit before a link names one");

        // Follow the failed check to the step it names.
        const row = page.getByTestId("check-failed").filter({ hasText: w.kind });
        const link = row.getByTestId("check-step-link");
        assert.equal((await link.textContent()).trim(), w.stepN);
        await link.click();
        await page.waitForURL(/\/runs\/[0-9a-f-]+\?turn=1&step=2$/);
        const lit = page.locator('[data-testid="run-step"][data-highlighted="true"]');
        await lit.waitFor();
        assert.equal(await lit.getAttribute("data-step"), "1-2", "the step the check names is lit");
        assert.equal(await lit.getAttribute("id"), "step-1-2");
        assert.ok(await inView(lit.getByTestId("step-error")), "the lit step's error is scrolled into view");

        // What the step did and what came back, the agent's words as they are.
        assert.equal(await lit.getByTestId("step-number").textContent(), w.stepN);
        assert.equal(await lit.getByTestId("step-tool").textContent(), "DATA_QUERY");
        assert.equal(await lit.getByTestId("step-error-code").textContent(), "INVALID_RANGE");
        assert.equal(await lit.getByTestId("step-error-message").textContent(), named.answer.value.message);
        assert.equal(await lit.getByTestId("step-error-suggestion").textContent(), named.answer.value.suggestion);
        const error = await lit.getByTestId("step-error").textContent();
        assert.ok(error.includes(w.error) && error.includes(w.suggestion), `the error's parts labelled: ${error}`);
        assert.equal(await lit.getByTestId("step-simulated").count(), 0, "a declared error is not labelled simulated");
        assert.match(await lit.textContent(), /<1\s?(ms|毫秒)/, "the reply's time, with its unit");

        // Long arguments fold; the keyboard reaches the toggle and unfolds them.
        const args = lit.getByTestId("run-step-arguments");
        assert.equal(await args.getAttribute("data-folded"), "true", "ten lines of arguments are folded");
        assert.ok(!(await args.textContent()).includes("query_range"), "the folded lines are hidden");
        const fold = lit.getByTestId("run-step-arguments-fold");
        assert.equal((await fold.textContent()).trim(), w.showAll);
        assert.equal(await fold.getAttribute("aria-expanded"), "false");
        // From the step before's toggle (its error holds no control), Tab goes on to this one's.
        await page.locator('[data-step="1-1"]').getByTestId("run-step-arguments-fold").focus();
        await page.keyboard.press("Tab");
        assert.equal(await fold.evaluate((el) => el === document.activeElement), true, "Tab reaches the fold toggle");
        assert.equal(await fold.evaluate((el) => el.tagName), "BUTTON");
        await page.keyboard.press("Enter");
        assert.equal(await fold.getAttribute("aria-expanded"), "true");
        assert.equal((await fold.textContent()).trim(), w.showLess);
        const all = await args.textContent();
        assert.deepEqual(JSON.parse(all), named.call.arguments, "unfolded, the arguments are the call's JSON");
        assert.match(all, /"query_range": "A0:F10"/);

        assert.deepEqual(await clipped(page), [], "nothing cut off");
        await lit.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, `run-steps-${lang}.png`) });
        const violations = await audit(page);
        assert.deepEqual(violations, [], `axe-core on the run's steps (${lang}):\n${describeViolations(violations)}`);

        // The turn's own link still lights the turn, no step.
        await row.getByRole("link", { name: w.turnN }).click();
        await page.waitForURL(/\/runs\/[0-9a-f-]+\?turn=1$/);
        await page.getByTestId("turn-highlighted").first().waitFor();
        await lit.waitFor({ state: "detached" });
      });

      await t.test(`${lang}: a document and a simulated answer`, async () => {
        const w = WORDS[lang];
        // The demo's steps, the first one with the document it wrote and the
        // second one answered by the tool simulator.
        const doc = { path: "reports/late.md", text: `# 迟到名单\n\n| 姓名 | 次数 |\n|---|---|\n| 张三 | 2 |\n${"…\n".repeat(40)}`, truncated: true };
        const edited = turns.map((x) =>
          x.seq !== target.seq
            ? x
            : {
                ...x,
                steps: x.steps.map((s, i) =>
                  i === 0 ? { ...s, document: doc } : { ...s, answer: { kind: "simulated", value: { rows: [{ 姓名: "张三", 次数: 2 }] } } },
                ),
              },
        );
        const turnsUrl = `**/api/runs/${found.run.id}/turns`;
        await page.route(turnsUrl, (route) => route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(edited) }));
        try {
          await page.goto(runUrl);
          await page.reload();
          const first = page.locator('[data-testid="run-step"][data-step="1-1"]');
          const open = first.getByTestId("step-document-open");
          await open.waitFor();
          assert.equal((await open.textContent()).trim(), w.open);
          const second = page.locator('[data-testid="run-step"][data-step="1-2"]');
          assert.equal((await second.getByTestId("step-simulated").textContent()).trim(), w.simulated);
          assert.match(await second.getByTestId("run-step-result").textContent(), /"姓名": "张三"/);

          await open.focus();
          await page.keyboard.press("Enter");
          const modal = page.getByTestId("step-document");
          await modal.getByTestId("step-document-text").waitFor();
          assert.equal(await modal.getByTestId("step-document-text").textContent(), doc.text);
          assert.match(await modal.getByTestId("step-document-truncated").textContent(), new RegExp(w.truncated));
          assert.ok((await page.locator(".mantine-Modal-title").textContent()).includes(doc.path));
          await page.waitForTimeout(300); // the modal finishes its transition
          const violations = await audit(page);
          assert.deepEqual(violations, [], `axe-core on a step's document (${lang}):\n${describeViolations(violations)}`);
          assert.deepEqual(await clipped(page), [], "nothing cut off");
          await page.keyboard.press("Escape");
          await modal.getByTestId("step-document-text").waitFor({ state: "hidden" });
          assert.ok(await page.getByTestId("run-drawer").getByTestId("run-checks").isVisible(), "Escape closes the document, not the run");
        } finally {
          await page.unroute(turnsUrl);
        }
      });
    }
    assert.deepEqual(pageErrors, []);
  } finally {
    await close();
  }
});
