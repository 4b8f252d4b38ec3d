import { Badge, Stack, Table, Text, Tooltip, UnstyledButton, VisuallyHidden } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { Campaign, CoverageGrid as CoverageGridData } from "../../../api";
import { num } from "../../../components/format";
import { navigate } from "../../../routing";

/** Persona and goal names: the grid's, else the campaign's seed set, else the id. */
export function seedNames(grid: CoverageGridData, campaign: Campaign) {
  const personas: Record<string, string> = {
    ...Object.fromEntries((campaign.seed_set.personas ?? []).map((p) => [p.id, p.name])),
    ...grid.persona_names,
  };
  const goals: Record<string, string> = {
    ...Object.fromEntries((campaign.seed_set.goals ?? []).map((g) => [g.id, g.title])),
    ...grid.goal_titles,
  };
  return { persona: (id: string) => personas[id] || id, goal: (id: string) => goals[id] || id };
}

/**
 * Persona x goal grid; a cell with sessions opens them. With production
 * conversations of the target, each cell counts those placed on it, and a
 * cell production reaches that exploration never tried is marked, in words.
 */
export function CoverageGrid({ grid, campaign }: { grid: CoverageGridData; campaign: Campaign }) {
  const { t } = useTranslation();
  const { personas, goals, cells } = grid;
  const name = seedNames(grid, campaign);
  const total = grid.production_conversations ?? 0;
  const unplaced = grid.production_unplaced ?? 0;
  const production = total > 0;
  return (
    <Stack gap={4}>
      <Table withTableBorder withColumnBorders data-testid="coverage-grid">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t("ev.personaGoal")}</Table.Th>
            {goals.map((g) => (
              <Table.Th key={g} data-testid="coverage-goal">
                {name.goal(g)}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {personas.map((p) => (
            <Table.Tr key={p}>
              <Table.Th data-testid="coverage-persona">{name.persona(p)}</Table.Th>
              {goals.map((g) => {
                const c = cells.find((x) => x.persona_id === p && x.goal_id === g);
                const n = c?.sessions ?? 0;
                const ok = c?.achieved ?? 0;
                const issues = c?.issues ?? 0;
                const prod = c?.production ?? 0;
                const gap = n === 0 && prod > 0;
                const label = t("ev.cellTip", { count: n, ok: num(ok), n: num(n), issues: num(issues) });
                const prodLine = production ? (
                  <Text size="xs" data-testid="coverage-production">
                    {t("ev.cellProduction", { n: num(prod) })}
                  </Text>
                ) : null;
                return (
                  <Table.Td
                    key={g}
                    bg={gap ? "orange.0" : n === 0 ? "gray.1" : ok === n ? "teal.1" : ok === 0 ? "red.1" : "yellow.1"}
                    style={gap ? { outline: "2px dashed var(--mantine-color-orange-filled)", outlineOffset: -3 } : undefined}
                    data-testid={gap ? "coverage-gap" : undefined}
                  >
                    {gap && (
                      <>
                        <Badge color="orange" variant="filled" size="sm" aria-hidden>
                          {t("ev.productionGap")}
                        </Badge>
                        <VisuallyHidden>{t("ev.productionGapSr", { persona: name.persona(p), goal: name.goal(g) })}</VisuallyHidden>
                      </>
                    )}
                    {n === 0 ? (
                      <Text size="sm" c="dimmed">
                        {t("ev.notExplored")}
                      </Text>
                    ) : (
                      <Tooltip label={label}>
                        <UnstyledButton
                          onClick={() => navigate({ kind: "report", id: campaign.id, tab: "exploration", cell: `${p}|${g}` })}
                          data-testid="coverage-cell"
                          aria-label={`${name.persona(p)} × ${name.goal(g)}: ${label}`}
                        >
                          <Text size="sm" td="underline" c="indigo.8">
                            {t("ev.cellValue", { ok: num(ok), n: num(n) })}
                            {issues > 0 ? ` · ${t("ev.issuesN", { count: issues, n: num(issues) })}` : ""}
                          </Text>
                        </UnstyledButton>
                      </Tooltip>
                    )}
                    {prodLine}
                  </Table.Td>
                );
              })}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {production && (
        <Text size="xs" c="dimmed" data-testid="coverage-production-legend">
          {t("ev.productionLegend", { placed: num(total - unplaced), total: num(total), unplaced: num(unplaced) })}
        </Text>
      )}
    </Stack>
  );
}
