// One URL per screen, kept in the location hash so that it survives a
// reload (in the desktop app and behind `agenteval serve` alike) and so that
// Back and Forward walk the screens the user saw.
//
//   #/campaigns                                   campaign list
//   #/campaigns/:id?verdict=&scenario=&tag=&page= campaign (runs filters)
//   #/campaigns/:id/report/:tab?issue=&cell=      report drawer at a tab (an issue's or a
//                                                 coverage cell's sessions listed)
//   #/campaigns/:id/sessions/:sid?turn=N&step=M   a session at round N (at its step M)
//   #/campaigns/:id/runs/:rid?turn=N&step=M       a run at turn N (at its step M)
//   #/production?target=&text=&page=              production conversations (filters, page)
//   #/production/:cid?target=&text=&page=         one of them open over the list
//   #/targets, #/settings

import { useSyncExternalStore } from "react";

export const REPORT_TABS = ["scores", "scenarios", "charts", "analysis", "comparison", "exploration"] as const;
export type ReportTab = (typeof REPORT_TABS)[number];

/** Filters of the campaign's runs and sessions tables. */
export type CampaignQuery = {
  verdict?: string;
  scenario?: string;
  tag?: string;
  page?: number;
  spage?: number;
  status?: string;
};

/** Filters and page of the production conversations list. */
export type ProductionQuery = {
  target?: string;
  text?: string;
  page?: number;
};

export type Route =
  | { kind: "campaigns" }
  | { kind: "campaign"; id: string; query: CampaignQuery }
  | { kind: "report"; id: string; tab: ReportTab; issue?: string | null; cell?: string | null }
  | { kind: "session"; id: string; sid: string; turn: number | null; step?: number | null }
  | { kind: "run"; id: string; rid: string; turn: number | null; step?: number | null }
  | { kind: "blind"; id: string }
  | { kind: "production"; query: ProductionQuery; conversation: string | null }
  | { kind: "targets" }
  | { kind: "settings" };

function positive(v: string | null): number | null {
  if (v === null) return null;
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : null;
}

function text(v: string | null): string | undefined {
  return v === null || v === "" ? undefined : v;
}

/** The route a hash names; unknown hashes are the campaign list. */
export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#/, "");
  const [pathPart = "", queryPart = ""] = raw.split("?", 2);
  const q = new URLSearchParams(queryPart);
  const parts = pathPart
    .split("/")
    .filter(Boolean)
    .map((p) => {
      try {
        return decodeURIComponent(p);
      } catch {
        return p;
      }
    });
  const [head, id, sub, leaf] = parts;
  if (head === "targets") return { kind: "targets" };
  if (head === "settings") return { kind: "settings" };
  if (head === "production") {
    const query = { target: text(q.get("target")), text: text(q.get("text")), page: positive(q.get("page")) ?? undefined };
    return { kind: "production", query, conversation: id ?? null };
  }
  if (head !== "campaigns" || !id) return { kind: "campaigns" };
  if (sub === "report") {
    const tab = (REPORT_TABS as readonly string[]).includes(leaf ?? "") ? (leaf as ReportTab) : "scores";
    return { kind: "report", id, tab, issue: text(q.get("issue")) ?? null, cell: text(q.get("cell")) ?? null };
  }
  if (sub === "sessions" && leaf) return { kind: "session", id, sid: leaf, turn: positive(q.get("turn")), step: positive(q.get("step")) };
  if (sub === "runs" && leaf) return { kind: "run", id, rid: leaf, turn: positive(q.get("turn")), step: positive(q.get("step")) };
  if (sub === "blind") return { kind: "blind", id };
  return {
    kind: "campaign",
    id,
    query: {
      verdict: text(q.get("verdict")),
      scenario: text(q.get("scenario")),
      tag: text(q.get("tag")),
      page: positive(q.get("page")) ?? undefined,
      spage: positive(q.get("spage")) ?? undefined,
      status: text(q.get("status")),
    },
  };
}

function withQuery(path: string, q: Record<string, string | number | null | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== null && v !== undefined && v !== "") p.set(k, String(v));
  const s = p.toString();
  return s ? `${path}?${s}` : path;
}

/** The hash of a route, `#/...`. */
export function href(route: Route): string {
  const e = encodeURIComponent;
  switch (route.kind) {
    case "campaigns":
      return "#/campaigns";
    case "targets":
      return "#/targets";
    case "settings":
      return "#/settings";
    case "production":
      return withQuery(route.conversation ? `#/production/${e(route.conversation)}` : "#/production", { ...route.query });
    case "campaign":
      return withQuery(`#/campaigns/${e(route.id)}`, { ...route.query });
    case "report":
      return withQuery(`#/campaigns/${e(route.id)}/report/${route.tab}`, { issue: route.issue, cell: route.cell });
    case "session":
      return withQuery(`#/campaigns/${e(route.id)}/sessions/${e(route.sid)}`, { turn: route.turn, step: route.step });
    case "run":
      return withQuery(`#/campaigns/${e(route.id)}/runs/${e(route.rid)}`, { turn: route.turn, step: route.step });
    case "blind":
      return `#/campaigns/${e(route.id)}/blind`;
  }
}

const CHANGED = "agenteval:route";

function depth(): number {
  const state: unknown = window.history.state;
  const d: unknown = typeof state === "object" && state !== null ? Reflect.get(state, "appDepth") : 0;
  return typeof d === "number" ? d : 0;
}

/** Where the keyboard focus was on a screen: the focused control's test id, its place among its twins and its text. */
type FocusKey = { testId: string; index: number; text: string };

function focusKey(): FocusKey | null {
  const el = document.activeElement;
  const testId = el instanceof HTMLElement ? el.dataset.testid : undefined;
  if (!el || !testId) return null;
  const twins = [...document.querySelectorAll(`[data-testid="${CSS.escape(testId)}"]`)];
  return { testId, index: twins.indexOf(el), text: el.textContent ?? "" };
}

/**
 * Puts the focus back on the control that opened a screen, once the screen
 * it returns to has rendered again (its data may still be loading): the
 * twin with the same text, else the one at the same place. It stops once
 * the focus has stayed there for a moment (a drawer's focus trap may take
 * it on opening), or after a few seconds if that control never comes back.
 */
function restoreFocus(key: FocusKey): void {
  const deadline = Date.now() + 4000;
  let held = 0;
  const tick = () => {
    const active = document.activeElement;
    const twins = [...document.querySelectorAll<HTMLElement>(`[data-testid="${CSS.escape(key.testId)}"]`)];
    const el = twins.find((x) => (x.textContent ?? "") === key.text) ?? twins[key.index];
    if (el && active === el) held += 1;
    else if (el) {
      held = 0;
      el.focus();
    }
    if (held < 3 && Date.now() < deadline) window.setTimeout(tick, 60);
  };
  window.setTimeout(tick, 0);
}

function historyState(): Record<string, unknown> {
  const state: unknown = window.history.state;
  return typeof state === "object" && state !== null ? { ...state } : {};
}

/**
 * Goes to a route. A new history entry each time (Back returns, with the
 * focus on the control that left), except with `replace` (a tab or a
 * filter changed within the same screen).
 */
export function navigate(route: Route, opts: { replace?: boolean } = {}): void {
  const next = href(route);
  if (window.location.hash === next) return;
  const url = new URL(window.location.href);
  url.hash = next;
  if (opts.replace) window.history.replaceState({ ...historyState(), appDepth: depth() }, "", url.toString());
  else {
    window.history.replaceState({ ...historyState(), focus: focusKey() }, "");
    window.history.pushState({ appDepth: depth() + 1 }, "", url.toString());
  }
  window.dispatchEvent(new Event(CHANGED));
}

if (typeof window !== "undefined") {
  window.addEventListener("popstate", () => {
    const key: unknown = historyState().focus;
    if (typeof key === "object" && key !== null && "testId" in key) restoreFocus(key as FocusKey);
  });
}

/** Closes a screen: Back when the user came from within the app, else to `fallback`. */
export function leave(fallback: Route): void {
  if (depth() > 0) window.history.back();
  else navigate(fallback, { replace: true });
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener("hashchange", onChange);
  window.addEventListener("popstate", onChange);
  window.addEventListener(CHANGED, onChange);
  return () => {
    window.removeEventListener("hashchange", onChange);
    window.removeEventListener("popstate", onChange);
    window.removeEventListener(CHANGED, onChange);
  };
}

let cachedHash: string | null = null;
let cachedRoute: Route = { kind: "campaigns" };

function snapshot(): Route {
  const h = window.location.hash;
  if (h !== cachedHash) {
    cachedHash = h;
    cachedRoute = parseHash(h);
  }
  return cachedRoute;
}

/** The current route; re-renders on every hash change (Back included). */
export function useRoute(): Route {
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

/** The campaign a route is about, if any. */
export function campaignOf(route: Route): string | null {
  return "id" in route ? route.id : null;
}
