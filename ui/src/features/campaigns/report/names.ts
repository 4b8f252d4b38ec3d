// How the report names the runs and sessions it cites, as the engine does
// in the exports: "Send an email, run 12", "Dana × Track an order #2, turn 3".
// Ids of one campaign share their first characters, so a shortened id would
// name nothing; an id the report does not name is shown whole.

import { useTranslation } from "react-i18next";
import type { EvidenceNames } from "../../../api";
import { num } from "../../../components/format";

export type Namer = {
  run: (id: string) => string;
  session: (id: string, turn?: number | null, step?: number | null) => string;
};

export function useEvidenceNames(names: EvidenceNames | undefined): Namer {
  const { t } = useTranslation();
  const runs = new Map((names?.runs ?? []).map((r) => [r.id, r]));
  const sessions = new Map((names?.sessions ?? []).map((s) => [s.id, s]));
  return {
    run: (id) => {
      const r = runs.get(id);
      return r ? t("ev.citeRun", { scenario: r.scenario, n: num(r.number) }) : t("ev.citeRunId", { id });
    },
    session: (id, turn, step) => {
      const s = sessions.get(id);
      const name = s ? t("ev.citeSession", { persona: s.persona, goal: s.goal, n: num(s.ordinal) }) : t("ev.citeSessionId", { id });
      if (turn && step) return t("ev.citeStep", { session: name, turn: num(turn), step: num(step) });
      return turn ? t("ev.citeTurn", { session: name, n: num(turn) }) : name;
    },
  };
}
