// The UI's languages: English and Chinese dictionaries (en.ts, zh.ts), the
// language kept in the browser, and the i18next instance every screen uses.

import i18n from "i18next";
import { initReactI18next } from "react-i18next";
import { en } from "./en";
import { zh } from "./zh";

const LANG_STORAGE = "agenteval.language";

export type UiLanguage = "en" | "zh";

export function storedLanguage(): UiLanguage {
  const v = window.localStorage.getItem(LANG_STORAGE);
  if (v === "en" || v === "zh") return v;
  return navigator.language.toLowerCase().startsWith("zh") ? "zh" : "en";
}

export function setLanguage(lang: UiLanguage): void {
  window.localStorage.setItem(LANG_STORAGE, lang);
  void i18n.changeLanguage(lang);
  document.documentElement.lang = lang;
}

void i18n.use(initReactI18next).init({
  resources: { en: { translation: en }, zh: { translation: zh } },
  lng: storedLanguage(),
  fallbackLng: "en",
  interpolation: { escapeValue: false },
  returnNull: false,
});

export default i18n;
