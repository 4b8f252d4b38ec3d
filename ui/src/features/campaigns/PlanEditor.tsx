import { Group, NumberInput, SegmentedControl, Table, Text, TextInput } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { PlanEntry, ScenarioSummary } from "../../api";
import { num as localNumber } from "../../components/format";
import { LIMITS, numberOf, outOfRange, periodMinutes, timeOfDayMinutes } from "./limits";

export type PlanMode = "once" | "rounds" | "every";
export type PlanDraft = { mode: PlanMode; rounds: number | string; every: string; at: string };

export const DEFAULT_PLAN: PlanDraft = { mode: "once", rounds: 3, every: "1d", at: "" };

/** The most runs a plan may schedule (the engine's limit). */
export const MAX_PLANNED_RUNS = 200_000;

export type PlanProblem = { key: string; values?: Record<string, string | number> };

/** Why an entry cannot be planned, or null. */
export function planProblem(d: PlanDraft): { field: "rounds" | "every" | "at"; problem: PlanProblem } | null {
  if (d.mode === "rounds") {
    const n = typeof d.rounds === "number" ? d.rounds : numberOf(d.rounds);
    if (n === null) return { field: "rounds", problem: { key: "form.errRequired" } };
    const p = outOfRange(n, LIMITS.rounds);
    if (p) return { field: "rounds", problem: { key: `form.${p.key}`, values: { min: p.min, max: p.max } } };
  }
  if (d.mode === "every") {
    if (periodMinutes(d.every) === null) return { field: "every", problem: { key: "plan.errEvery" } };
    if (d.at.trim() && timeOfDayMinutes(d.at) === null) return { field: "at", problem: { key: "plan.errAt" } };
  }
  return null;
}

/**
 * How many runs one entry schedules in a window of `hours` campaign hours
 * starting at `start`, as the engine expands it; null when it cannot be
 * planned.
 */
export function entryRuns(d: PlanDraft, hours: number, start: Date): number | null {
  if (planProblem(d)) return null;
  if (d.mode === "once") return 1;
  if (d.mode === "rounds") return Number(d.rounds);
  const period = periodMinutes(d.every) ?? 0;
  const windowMin = hours * 60;
  let first = 0;
  const at = d.at.trim() ? timeOfDayMinutes(d.at) : null;
  if (at !== null) {
    const startMin = start.getUTCHours() * 60 + start.getUTCMinutes() + start.getUTCSeconds() / 60;
    first = at - startMin;
    while (first < 0) first += 1440;
  }
  if (first >= windowMin) return 0;
  return Math.ceil((windowMin - first) / period);
}

export function planEntry(scenarioId: string, d: PlanDraft): PlanEntry {
  if (d.mode === "rounds") return { scenario_id: scenarioId, rounds: Number(d.rounds) };
  if (d.mode === "every") return { scenario_id: scenarioId, every: d.every.trim(), at: d.at.trim() || null };
  return { scenario_id: scenarioId };
}

/** Per selected scenario: once, `rounds`, or `every` with an optional `at`. */
export function PlanEditor(props: {
  selected: string[];
  scenarios: ScenarioSummary[];
  plan: Record<string, PlanDraft>;
  hours: number | null;
  start: Date;
  showErrors: boolean;
  onChange: (id: string, d: PlanDraft) => void;
}) {
  const { t } = useTranslation();
  if (props.selected.length === 0) return null;
  const title = (id: string) => props.scenarios.find((s) => s.id === id)?.title ?? id;
  return (
    <Table withTableBorder verticalSpacing={4} data-testid="plan-table">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t("plan.scenario")}</Table.Th>
          <Table.Th>{t("plan.schedule")}</Table.Th>
          <Table.Th>{t("plan.details")}</Table.Th>
          <Table.Th ta="right">{t("plan.runs")}</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {props.selected.map((id) => {
          const d = props.plan[id] ?? DEFAULT_PLAN;
          const problem = planProblem(d);
          const shown = props.showErrors || problem?.field === "at" || problem?.field === "every" ? problem : null;
          const msg = (f: string) => (shown && shown.field === f ? t(shown.problem.key, shown.problem.values ?? {}) : undefined);
          const runs = props.hours !== null ? entryRuns(d, props.hours, props.start) : null;
          return (
            <Table.Tr key={id} data-testid="plan-row">
              <Table.Td>
                <Text size="sm">{title(id)}</Text>
              </Table.Td>
              <Table.Td>
                <SegmentedControl
                  size="xs"
                  value={d.mode}
                  onChange={(v) => props.onChange(id, { ...d, mode: v === "rounds" ? "rounds" : v === "every" ? "every" : "once" })}
                  data={[
                    { value: "once", label: t("plan.once") },
                    { value: "rounds", label: t("plan.rounds") },
                    { value: "every", label: t("plan.every") },
                  ]}
                  data-testid="plan-mode"
                />
              </Table.Td>
              <Table.Td>
                {d.mode === "once" && (
                  <Text size="xs" c="dimmed">
                    {t("plan.onceHelp")}
                  </Text>
                )}
                {d.mode === "rounds" && (
                  <NumberInput
                    size="xs"
                    w={160}
                    aria-label={t("plan.rounds")}
                    value={d.rounds}
                    clampBehavior="none"
                    allowDecimal={false}
                    error={msg("rounds")}
                    onChange={(v) => props.onChange(id, { ...d, rounds: v })}
                    data-testid="plan-rounds"
                  />
                )}
                {d.mode === "every" && (
                  <Group gap="xs" align="flex-start" wrap="nowrap">
                    <TextInput
                      size="xs"
                      w={120}
                      aria-label={t("plan.every")}
                      placeholder="6h"
                      leftSection={<Text size="xs">{t("plan.everyPrefix")}</Text>}
                      leftSectionWidth={48}
                      value={d.every}
                      error={msg("every")}
                      onChange={(e) => props.onChange(id, { ...d, every: e.currentTarget.value })}
                      data-testid="plan-every"
                    />
                    <TextInput
                      size="xs"
                      w={120}
                      aria-label={t("plan.at")}
                      placeholder="09:00"
                      leftSection={<Text size="xs">{t("plan.atPrefix")}</Text>}
                      leftSectionWidth={48}
                      value={d.at}
                      error={msg("at")}
                      onChange={(e) => props.onChange(id, { ...d, at: e.currentTarget.value })}
                      data-testid="plan-at"
                    />
                  </Group>
                )}
              </Table.Td>
              <Table.Td ta="right">
                <Text size="sm" data-testid="plan-row-runs">
                  {runs === null ? "—" : localNumber(runs)}
                </Text>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
