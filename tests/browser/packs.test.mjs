// Where the scenario packs come from, as a user sees it, in both
// languages: the pack of their own that run.sh put in the data folder is
// listed apart from the shipped packs in the campaign form (the list and the
// pack filter), and Settings → About names the version, the git revision
// and the build day.

import assert from "node:assert/strict";
import { test } from "node:test";
import { LANGS, api, assertNothingClipped, launch, setLanguage, signIn } from "./helpers.mjs";

const WORDS = {
  en: { shipped: "Shipped packs", own: "Your packs" },
  zh: { shipped: "内置场景包", own: "自定义场景包" },
};

test("the API says which scenarios are shipped and which are the user's", async () => {
  const scenarios = await api("/api/scenarios");
  // (The regression test's saved scenarios, in pack "regressions", come after this one.)
  const own = scenarios.filter((s) => !s.shipped && s.pack !== "regressions").map((s) => `${s.pack}/${s.id}`);
  assert.deepEqual(own, ["my_pack/mine.greeting"], "only the data folder's pack is the user's own");
  assert.ok(scenarios.filter((s) => s.shipped).length >= 30, "the shipped packs come from the binary");
});

for (const lang of LANGS) {
  test(`${lang}: the user's own pack is listed apart, and About names the build`, async () => {
    const { page, pageErrors, close } = await launch();
    try {
      await signIn(page);
      await setLanguage(page, lang);
      await page.getByTestId("new-campaign").click();
      const own = page.getByTestId("own-scenarios");
      await own.waitFor();
      assert.equal(await own.getByTestId("scenario-option").count(), 1, "one scenario of the user's own");
      assert.match(await own.innerText(), new RegExp(`${WORDS[lang].own}[\\s\\S]*Greets the customer by name · my_pack`));
      const shipped = page.getByTestId("shipped-scenarios");
      assert.match(await shipped.innerText(), new RegExp(`^${WORDS[lang].shipped}`));
      assert.ok((await shipped.getByTestId("scenario-option").count()) >= 30);

      await page.getByTestId("filter-pack").click();
      const listbox = page.getByRole("listbox");
      await listbox.waitFor();
      const groups = await listbox.innerText();
      assert.ok(
        groups.indexOf(WORDS[lang].shipped) < groups.indexOf("send_email") && groups.indexOf(WORDS[lang].own) < groups.indexOf("my_pack"),
        `the pack filter groups the packs by where they come from: ${groups}`,
      );
      assert.ok(groups.indexOf("send_email") < groups.indexOf(WORDS[lang].own), "shipped packs first in the filter");
      await page.getByRole("option", { name: "my_pack" }).click();
      assert.equal(await page.getByTestId("scenario-option").count(), 1, "filtering on the user's pack leaves its scenario");
      await assertNothingClipped(page, `${lang} campaign form with a pack of one's own`);
      await page.keyboard.press("Escape");

      await page.getByTestId("nav-settings").click();
      const revision = await page.getByTestId("about-revision").innerText();
      assert.match(revision, /^([0-9a-f]{12}|unknown)$/, "About names the git revision");
      assert.match(await page.getByTestId("about-built").innerText(), /^\d{4}-\d{2}-\d{2}$/, "and the build day");
      assert.match(await page.getByTestId("about-version").innerText(), /^\d+\.\d+\.\d+/);
      assert.deepEqual(pageErrors, []);
    } finally {
      await close();
    }
  });
}
