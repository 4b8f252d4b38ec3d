// The UI speaks both languages completely: every key of the English
// dictionary exists in the Chinese one and the other way round, every key
// the code asks for exists, and no user-visible text is written into a
// component instead of the dictionaries (JSX text, and the props a user
// reads: label, title, placeholder, aria-label, description, ...).
//
// Run: node --test tests/ui/i18n.test.mjs (part of scripts/test.sh).

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const UI = join(ROOT, "ui");
const require = createRequire(join(UI, "package.json"));
const ts = require("typescript");

const LETTER = /\p{L}/u;
/** Props whose value a user reads. */
const USER_PROPS = new Set([
  "label",
  "title",
  "placeholder",
  "aria-label",
  "description",
  "alt",
  "error",
  "message",
  "tooltip",
  "confirmLabel",
  "cancelLabel",
  "nothingFoundMessage",
]);
/**
 * Text that is the same in every language and is no sentence: example
 * values of technical fields (URLs, JSON paths, model names, header names).
 */
function technical(s) {
  const v = s.trim();
  return (
    /^[a-z][a-z0-9+.-]*:\/\//i.test(v) || // URL
    /^\$[.[]/.test(v) || // JSONPath
    /^[{[]/.test(v) || // JSON example
    /^[A-Z][A-Z0-9_]+$/.test(v) || // ENV_VAR
    /^[\w.-]+(\/[\w.-]+)+$/.test(v) || // path or model/name
    /^[a-z0-9]+([._-][a-z0-9]+)+$/i.test(v) || // model-name-1.5, X-Api-Key
    /^\d+[smhd]$/.test(v) || // a period: 30m, 6h, 1d
    /^\d{1,2}:\d{2}$/.test(v) // a time of day
  );
}

function parse(file) {
  return ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
}

function lineOf(sf, node) {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

/** Flattens an object literal of strings into dotted keys. */
function flatten(obj, prefix, out, sf) {
  for (const p of obj.properties) {
    if (!ts.isPropertyAssignment(p)) continue;
    const name = ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) ? p.name.text : p.name.getText(sf);
    const key = prefix ? `${prefix}.${name}` : name;
    const init = p.initializer;
    if (ts.isObjectLiteralExpression(init)) flatten(init, key, out, sf);
    else if (ts.isStringLiteralLike(init)) out.set(key, init.text);
    else out.set(key, init.getText(sf));
  }
  return out;
}

function dictionaries() {
  const dicts = {};
  for (const lang of ["en", "zh"]) {
    const sf = parse(join(UI, "src", "i18n", `${lang}.ts`));
    const visit = (node) => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === lang) {
        let init = node.initializer;
        while (init && (ts.isAsExpression(init) || ts.isSatisfiesExpression?.(init) || ts.isParenthesizedExpression(init))) init = init.expression;
        if (init && ts.isObjectLiteralExpression(init)) dicts[lang] = flatten(init, "", new Map(), sf);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return dicts;
}

function tsxFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "i18n" ? [] : tsxFiles(p);
    return /\.tsx?$/.test(e.name) && !/bindings\.ts$|\.d\.ts$/.test(e.name) ? [p] : [];
  });
}

const { en, zh } = dictionaries();

test("the English and Chinese dictionaries have the same keys, none empty", () => {
  assert.ok(en && en.size > 100, "the English dictionary is found in ui/src/i18n/en.ts");
  assert.ok(zh && zh.size > 100, "the Chinese dictionary is found in ui/src/i18n/zh.ts");
  const onlyEn = [...en.keys()].filter((k) => !zh.has(k));
  const onlyZh = [...zh.keys()].filter((k) => !en.has(k));
  const empty = [...en, ...zh].filter(([, v]) => v.trim() === "").map(([k]) => k);
  assert.deepEqual(onlyEn, [], `keys missing in zh: ${onlyEn.join(", ")}`);
  assert.deepEqual(onlyZh, [], `keys missing in en: ${onlyZh.join(", ")}`);
  assert.deepEqual(empty, [], `empty translations: ${empty.join(", ")}`);
});

test("every translation key the components ask for exists", () => {
  const missing = [];
  // A counted text has its plural forms (`key_one`, `key_other`).
  const known = (key) => en.has(key) || en.has(`${key}_other`);
  for (const file of tsxFiles(join(UI, "src"))) {
    const sf = parse(file);
    const visit = (node) => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "t" && node.arguments[0]) {
        const a = node.arguments[0];
        const where = `${relative(ROOT, file)}:${lineOf(sf, node)}`;
        if (ts.isStringLiteralLike(a) && !ts.isNoSubstitutionTemplateLiteral(a)) {
          if (!known(a.text)) missing.push(`${where} t("${a.text}")`);
        } else if (ts.isNoSubstitutionTemplateLiteral(a)) {
          if (!known(a.text)) missing.push(`${where} t(\`${a.text}\`)`);
        } else if (ts.isTemplateExpression(a)) {
          // A key built at run time: its fixed start must begin some key.
          const head = a.head.text;
          if (head && ![...en.keys()].some((k) => k.startsWith(head)))
            missing.push(`${where} t(\`${head}…\`): no key starts so`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  assert.deepEqual(missing, [], `keys asked for but not in the dictionaries:\n${missing.join("\n")}`);
});

test("no user-visible text is hard-coded in a component", () => {
  const found = [];
  for (const file of tsxFiles(join(UI, "src")).filter((f) => f.endsWith(".tsx"))) {
    const sf = parse(file);
    const report = (node, text) => found.push(`${relative(ROOT, file)}:${lineOf(sf, node)}: ${JSON.stringify(text.trim().slice(0, 60))}`);
    const literal = (expr) => {
      if (!expr) return null;
      if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return expr.text;
      if (ts.isConditionalExpression(expr)) return literal(expr.whenTrue) ?? literal(expr.whenFalse);
      if (ts.isBinaryExpression(expr) && expr.operatorToken.kind === ts.SyntaxKind.BarBarToken) return literal(expr.right);
      if (ts.isBinaryExpression(expr) && expr.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken) return literal(expr.right);
      if (ts.isTemplateExpression(expr)) {
        const parts = [expr.head.text, ...expr.templateSpans.map((s) => s.literal.text)].join(" ");
        return LETTER.test(parts) ? parts : null;
      }
      return null;
    };
    const visit = (node) => {
      if (ts.isJsxText(node)) {
        if (LETTER.test(node.text) && !technical(node.text)) report(node, node.text);
      } else if (ts.isJsxAttribute(node)) {
        const name = node.name.getText(sf);
        if (USER_PROPS.has(name) && node.initializer) {
          const init = node.initializer;
          const text = ts.isStringLiteral(init) ? init.text : ts.isJsxExpression(init) ? literal(init.expression) : null;
          if (text && LETTER.test(text) && !technical(text)) report(node, `${name}=${text}`);
        }
      } else if (ts.isJsxExpression(node) && node.parent && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent))) {
        const text = literal(node.expression);
        if (text && LETTER.test(text) && !technical(text)) report(node, text);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  assert.deepEqual(found, [], `user-visible text outside the dictionaries (move it into ui/src/i18n/en.ts and zh.ts):\n${found.join("\n")}`);
});
