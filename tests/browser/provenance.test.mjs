// A manager reads, in a real browser against `agenteval serve` on the demo
// data, what left this machine (the report's scores tab: the demo contacts
// no host, so nothing did), the sessions per simulator fault kind (the
// exploration tab) and, in a session, what the check of the virtual user
// found, in words. In English and Chinese; screenshots go to
// $AGENTEVAL_TMP.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { BASE, LANGS, api, assertNothingClipped, findCampaign, launch, setLanguage, signIn } from "./helpers.mjs";

const SHOTS = process.env.AGENTEVAL_TMP ?? "/tmp";

test("the report says what left this machine and what the virtual-user check found", { timeout: 300_000 }, async (t) => {
  // The demo's own campaign: its sessions were played by the built-in virtual user.
  const demo = await findCampaign(
    (r) => /^(Demo campaign|演示活动) /.test(r.campaign.name) && (r.exploration?.records ?? 0) > 0,
    "the demo campaign, whose virtual users filed records",
  );
  const id = demo.campaign.id;
  assert.equal(demo.provenance.nothing_left_machine, true, "the demo contacts no host off this machine");
  const kinds = Object.keys(demo.exploration.simulator_fault_kinds);
  assert.equal(kinds.length, 6, "every fault kind is counted, with 0 when none");
  const sessions = await api(`/api/exploration/campaigns/${id}/sessions`);
  assert.ok(
    sessions.every((s) => s.status === "running" || Array.isArray(s.simulator_faults)),
    "every ended session was checked",
  );
  const played = sessions.filter((s) => s.played_by !== "person" && Array.isArray(s.simulator_faults));
  assert.ok(played.length > 0, "the virtual user played the demo's sessions");
  const session = played.find((s) => s.simulator_faults.length > 0) ?? played[0];

  const { page, pageErrors, close } = await launch({ viewport: { width: 1280, height: 800 } });
  try {
    await signIn(page);
    for (const lang of LANGS) {
      await t.test(`[${lang}] provenance, fault kinds and a session's check`, async () => {
        await page.goto(`${BASE}/#/campaigns/${id}/report/scores`);
        await setLanguage(page, lang);
        const section = page.getByTestId("report-provenance");
        await section.waitFor();
        const verdict = await page.getByTestId("provenance-verdict").textContent();
        assert.equal(verdict, lang === "en" ? "Nothing left this machine" : "没有任何数据离开本机");
        await section.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, `provenance-${lang}.png`) });
        await assertNothingClipped(page, `report scores (${lang})`);

        await page.getByTestId("tab-exploration").click();
        const faults = page.getByTestId("simulator-fault-kinds");
        await faults.waitFor();
        for (const kind of kinds) {
          const n = demo.exploration.simulator_fault_kinds[kind].sessions;
          const badge = faults.locator(`[data-kind="${kind}"]`);
          assert.ok((await badge.textContent()).endsWith(`×${n}`), `${kind}: ${n} sessions`);
        }
        await page.screenshot({ path: join(SHOTS, `fault-kinds-${lang}.png`) });

        await page.goto(`${BASE}/#/campaigns/${id}/sessions/${session.id}`);
        const check = page.getByTestId("session-simulator");
        await check.waitFor();
        await check.scrollIntoViewIfNeeded();
        const text = await check.textContent();
        if (session.simulator_faults.length === 0) {
          assert.match(text, lang === "en" ? /No simulator fault/ : /没有模拟器问题/);
        } else {
          assert.equal(await check.getByTestId("session-fault").count(), session.simulator_faults.length);
          assert.match(text, lang === "en" ? /counted apart/ : /单独计数/);
        }
        await page.screenshot({ path: join(SHOTS, `session-check-${lang}.png`) });
      });
    }
    assert.deepEqual(pageErrors, [], "no page errors");
  } finally {
    await close();
  }
});
