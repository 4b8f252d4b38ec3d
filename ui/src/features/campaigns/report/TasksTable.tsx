import { Stack, Table, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { GroupTasks, PeriodDelta } from "../../../api";
import { ms, num, pct } from "../../../components/format";
import { useEngineText } from "../../../i18n/engine";

/** A difficulty group's name in the reader's language (basic → 基础); a pack's own group as written. */
export function useGroupName(): (group: string) => string {
  const tx = useEngineText();
  return (group) => {
    const key = `group-${group}`;
    const said = tx({ key, args: {} });
    return said === key ? group : said;
  };
}

/** The task tables' headings: the group, its runs (when shown), then the figures per task. */
function TasksHead({ withRuns = false }: { withRuns?: boolean }) {
  const { t } = useTranslation();
  const headings = [
    t("tasks.group"),
    ...(withRuns ? [t("tasks.runs")] : []),
    t("tasks.completion"),
    t("tasks.keyFields"),
    t("tasks.steps"),
    t("tasks.tokens"),
    t("tasks.time"),
  ];
  return (
    <Table.Thead>
      <Table.Tr>
        {headings.map((h) => (
          <Table.Th key={h}>{h}</Table.Th>
        ))}
      </Table.Tr>
    </Table.Thead>
  );
}

/** The office benchmark's table: per difficulty group, task completion, key-field coverage, steps, tokens and time per task. */
export function TasksTable({ rows }: { rows: GroupTasks[] }) {
  const { t } = useTranslation();
  const groupName = useGroupName();
  if (rows.length === 0) return null;
  return (
    <Stack gap={4}>
      <Text fw={500} size="sm">
        {t("tasks.title")}
      </Text>
      <Table striped withTableBorder data-testid="report-tasks">
        <TasksHead withRuns />
        <Table.Tbody>
          {rows.map((g) => (
            <Table.Tr key={g.group} data-testid="report-tasks-row">
              <Table.Td style={{ whiteSpace: "nowrap" }}>{groupName(g.group)}</Table.Td>
              <Table.Td>{num(g.runs)}</Table.Td>
              <Table.Td>{pct(g.completion_rate)}</Table.Td>
              <Table.Td>{pct(g.key_field_coverage)}</Table.Td>
              <Table.Td>{num(g.steps_mean, 1)}</Table.Td>
              <Table.Td>{num(g.tokens_mean)}</Table.Td>
              <Table.Td style={{ whiteSpace: "nowrap" }}>{ms(g.latency_ms_mean)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Text size="xs" c="dimmed">
        {t("tasks.note")}
      </Text>
    </Stack>
  );
}

/** This period's task figures beside an earlier period's ("now ← then"), for the groups both have. */
export function TasksCompared({ now, then }: { now: GroupTasks[]; then: PeriodDelta | undefined }) {
  const { t } = useTranslation();
  const groupName = useGroupName();
  const rows = now.flatMap((g) => {
    const b = then?.tasks?.find((x) => x.group === g.group);
    return b ? [{ a: g, b }] : [];
  });
  if (!then || rows.length === 0) return null;
  const pair = (a: string, b: string) => `${a} ← ${b}`;
  return (
    <Stack gap={4}>
      <Text fw={500} size="sm">
        {t("tasks.compared", { name: then.campaign_name })}
      </Text>
      <Table striped withTableBorder data-testid="comparison-tasks">
        <TasksHead />
        <Table.Tbody>
          {rows.map(({ a, b }) => (
            <Table.Tr key={a.group}>
              <Table.Td style={{ whiteSpace: "nowrap" }}>{groupName(a.group)}</Table.Td>
              <Table.Td>{pair(pct(a.completion_rate), pct(b.completion_rate))}</Table.Td>
              <Table.Td>{pair(pct(a.key_field_coverage), pct(b.key_field_coverage))}</Table.Td>
              <Table.Td>{pair(num(a.steps_mean, 1), num(b.steps_mean, 1))}</Table.Td>
              <Table.Td>{pair(num(a.tokens_mean), num(b.tokens_mean))}</Table.Td>
              <Table.Td style={{ whiteSpace: "nowrap" }}>{pair(ms(a.latency_ms_mean), ms(b.latency_ms_mean))}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
