// The engine's sentences in the reader's language. The engine sends what
// it concluded as a catalogue key with arguments (Msg); the catalogue is
// the engine's own Fluent files (crates/domain/locales/<lang>/*.ftl),
// rendered here in the UI's current language. Quoted agent and user text
// arrives as an argument and is shown as said. A Text is a Msg or words
// somebody wrote themselves (a model, a person), shown as written.

import { FluentBundle, FluentResource, type FluentVariable } from "@fluent/bundle";
import { useTranslation } from "react-i18next";
import type { Arg, Msg, Text } from "../api";
import type { UiLanguage } from "./index";

const sources = import.meta.glob("../../../crates/domain/locales/*/*.ftl", {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

function bundle(lang: UiLanguage): FluentBundle {
  const b = new FluentBundle(lang, { useIsolating: false });
  for (const [path, source] of Object.entries(sources).sort()) {
    if (path.includes(`/locales/${lang}/`)) b.addResource(new FluentResource(source));
  }
  return b;
}

const bundles: Record<UiLanguage, FluentBundle> = { en: bundle("en"), zh: bundle("zh") };

function quote(lang: UiLanguage, s: string): string {
  return lang === "zh" ? `“${s}”` : `"${s}"`;
}

function value(arg: Arg, lang: UiLanguage): FluentVariable {
  if (arg === null) return "";
  if (typeof arg === "number" || typeof arg === "string") return arg;
  if (Array.isArray(arg)) return arg.map((s) => quote(lang, s)).join(lang === "zh" ? "、" : ", ");
  return renderMsg(arg, lang);
}

/** A message in `lang`; in English when `lang` lacks it; its key when no
 * catalogue has it. */
export function renderMsg(m: Msg, lang: UiLanguage): string {
  for (const l of [lang, "en"] as UiLanguage[]) {
    const b = bundles[l];
    const message = b.getMessage(m.key);
    if (message?.value) {
      const args: Record<string, FluentVariable> = {};
      for (const [name, arg] of Object.entries(m.args ?? {})) {
        if (arg !== undefined) args[name] = value(arg, l);
      }
      return b.formatPattern(message.value, args, []);
    }
  }
  return m.key;
}

export function renderText(t: Text | null | undefined, lang: UiLanguage): string {
  if (t == null) return "";
  return typeof t === "string" ? t : renderMsg(t, lang);
}

/** Whether a Text is a catalogue message (else: somebody's own words). */
export function isMsg(t: Text | null | undefined): t is Msg {
  return t != null && typeof t !== "string";
}

/** The UI's current language, following its switch. */
export function useUiLanguage(): UiLanguage {
  const { i18n } = useTranslation();
  return i18n.language === "zh" ? "zh" : "en";
}

/** `tx(text)` renders engine text in the UI's current language. */
export function useEngineText(): (t: Text | null | undefined) => string {
  const lang = useUiLanguage();
  return (t) => renderText(t, lang);
}
