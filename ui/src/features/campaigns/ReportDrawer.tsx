import { BarChart, DonutChart, LineChart } from "@mantine/charts";
import { Badge, Button, Drawer, Group, List, Paper, SimpleGrid, Stack, Table, Tabs, Text, Tooltip } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { useState } from "react";
import { api, asApiError, goalTitle, personaName, type ApiError, type CampaignReport, type ExplorationSession, type ScenarioSummary } from "../../api";
import type { CoverageGrid as CoverageGridData } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { pct, when } from "../../components/format";
import { explorationOf } from "./labels";

function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text size="xl" fw={700} data-testid={testId}>
        {value}
      </Text>
    </Paper>
  );
}

export function ReportDrawer(props: {
  report: CampaignReport;
  sessions: ExplorationSession[];
  /** The loaded scenarios, to name scenarios the report only knows by id. */
  scenarios: ScenarioSummary[];
  onClose: () => void;
  onOpenSession: (s: ExplorationSession) => void;
  onChanged: () => void;
}) {
  const { t } = useTranslation();
  const { report, sessions } = props;
  const fixed = report.fixed;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const analyse = async () => {
    setBusy(true);
    try {
      await api.generateAnalysis(report.campaign.id);
      setError(null);
      props.onChanged();
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };
  const human = report.human_review;
  const cmp = report.comparison;
  const ex = explorationOf(report);
  const known = new Map(props.scenarios.map((x) => [x.id, x]));
  const rows = fixed.per_scenario.map((r) => {
    const k = known.get(r.scenario_id);
    return {
      ...r,
      title: r.title && r.title !== r.scenario_id ? r.title : (k?.title ?? r.title),
      pack: r.pack || (k?.pack ?? ""),
      group: r.group ?? k?.group ?? null,
    };
  });
  const byPack = Object.values(
    rows.reduce<Record<string, { pack: string; passed: number; failed: number; errors: number }>>((acc, r) => {
      const key = r.pack || "—";
      const p = (acc[key] ??= { pack: key, passed: 0, failed: 0, errors: 0 });
      p.passed += r.tally.passed;
      p.failed += r.tally.failed;
      p.errors += r.tally.errors;
      return acc;
    }, {}),
  );

  return (
    <Drawer opened onClose={props.onClose} position="right" size="xl" title={t("report.title")} data-testid="report-drawer">
      <Text size="xs" c="dimmed" mb="sm">
        {t("report.generatedAt", { at: when(report.generated_at) })}
      </Text>
      <Tabs defaultValue="scores">
        <Tabs.List>
          <Tabs.Tab value="scores">{t("report.scores")}</Tabs.Tab>
          <Tabs.Tab value="scenarios">{t("report.scenarios")}</Tabs.Tab>
          <Tabs.Tab value="charts">{t("report.charts")}</Tabs.Tab>
          <Tabs.Tab value="analysis">{t("report.analysis")}</Tabs.Tab>
          <Tabs.Tab value="comparison">{t("report.comparison")}</Tabs.Tab>
          <Tabs.Tab value="exploration" data-testid="tab-exploration">
            {t("report.exploration")}
          </Tabs.Tab>
        </Tabs.List>

        <Tabs.Panel value="scores" pt="md">
          <SimpleGrid cols={3}>
            <Stat label={t("report.passRate")} value={pct(fixed.pass_rate)} testId="report-pass-rate" />
            <Stat label={t("view.finished")} value={`${fixed.runs_finished}/${fixed.runs_planned}`} />
            <Stat label={t("view.errors")} value={String(fixed.errors)} />
            <Stat label={t("view.passed")} value={String(fixed.passed)} />
            <Stat label={t("view.failed")} value={String(fixed.failed)} />
            <Stat label={t("report.achievement")} value={pct(ex?.goal_achievement_rate)} />
          </SimpleGrid>
          {human && (
            <Group mt="md" gap="xs">
              <Badge variant="light">
                {t("report.runsRated")} {human.runs_rated} · {human.run_rating_mean?.toFixed(1) ?? "—"}
              </Badge>
              <Badge variant="light">
                {t("report.sessionsRated")} {human.sessions_rated} · {human.session_rating_mean?.toFixed(1) ?? "—"}
              </Badge>
              <Badge variant="light">
                {t("report.agreement")} {pct(human.agreement)}
              </Badge>
            </Group>
          )}
          <Group mt="md" gap="xs">
            <Badge variant="light">{report.target_name} · {report.target_model}</Badge>
            {fixed.latency_p50_ms != null && <Badge variant="light">p50 {fixed.latency_p50_ms} ms</Badge>}
            {fixed.latency_p95_ms != null && <Badge variant="light">p95 {fixed.latency_p95_ms} ms</Badge>}
            <Badge variant="light">
              {t("report.tokens")} {fixed.tokens_in}/{fixed.tokens_out}
            </Badge>
            {(fixed.cost ?? 0) > 0 && <Badge variant="light">{t("report.cost")} {(fixed.cost ?? 0).toFixed(4)}</Badge>}
            {fixed.completion_rate != null && (
              <Badge variant="light">
                {t("report.completion")} {pct(fixed.completion_rate)}
              </Badge>
            )}
            {fixed.key_field_coverage != null && (
              <Badge variant="light">
                {t("report.keyFields")} {pct(fixed.key_field_coverage)}
              </Badge>
            )}
          </Group>
          {fixed.error_reasons.length > 0 && (
            <Stack gap={2} mt="md">
              <Text fw={500} size="sm">
                {t("report.errorReasons")}
              </Text>
              {fixed.error_reasons.map((e) => (
                <Text key={e.reason} size="sm">
                  {e.reason} ×{e.count}
                </Text>
              ))}
            </Stack>
          )}
        </Tabs.Panel>

        <Tabs.Panel value="scenarios" pt="md">
          {rows.length === 0 ? (
            <Text c="dimmed">{t("report.noScenarioRows")}</Text>
          ) : (
            <Table striped data-testid="report-scenarios">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t("form.scenarios")}</Table.Th>
                  <Table.Th>{t("view.passed")}</Table.Th>
                  <Table.Th>{t("view.failed")}</Table.Th>
                  <Table.Th>{t("view.errors")}</Table.Th>
                  <Table.Th>{t("report.passRate")}</Table.Th>
                  <Table.Th>{t("report.failingChecks")}</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((r) => (
                  <Table.Tr key={r.scenario_id}>
                    <Table.Td>
                      <Text size="sm">{r.title}</Text>
                      <Text size="xs" c="dimmed">
                        {r.pack}
                        {r.group ? ` · ${r.group}` : ""}
                      </Text>
                    </Table.Td>
                    <Table.Td>{r.tally.passed}</Table.Td>
                    <Table.Td>{r.tally.failed}</Table.Td>
                    <Table.Td>{r.tally.errors}</Table.Td>
                    <Table.Td>{pct(r.tally.pass_rate)}</Table.Td>
                    <Table.Td>
                      {r.failing_checks.slice(0, 3).map((c, i) => (
                        <Text key={i} size="xs">
                          {c.kind}: {c.detail} ×{c.count}
                        </Text>
                      ))}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          )}
        </Tabs.Panel>

        <Tabs.Panel value="charts" pt="md">
          <Stack>
            <Text fw={500}>{t("report.verdicts")}</Text>
            <DonutChart
              withLabelsLine
              withLabels
              data={[
                { name: t("view.passed"), value: fixed.passed, color: "teal.6" },
                { name: t("view.failed"), value: fixed.failed, color: "red.6" },
                { name: t("view.errors"), value: fixed.errors, color: "gray.5" },
              ]}
            />
            {byPack.length > 0 && (
              <>
                <Text fw={500}>{t("report.byPack")}</Text>
                <BarChart
                  h={240}
                  data={byPack}
                  dataKey="pack"
                  type="stacked"
                  series={[
                    { name: "passed", color: "teal.6", label: t("view.passed") },
                    { name: "failed", color: "red.6", label: t("view.failed") },
                    { name: "errors", color: "gray.5", label: t("view.errors") },
                  ]}
                  withLegend
                />
              </>
            )}
            {fixed.timeline.length > 1 && (
              <>
                <Text fw={500}>{t("report.timeline")}</Text>
                <LineChart
                  h={220}
                  data={fixed.timeline.map((p) => ({
                    hour: (p.offset_hours ?? 0).toFixed(1),
                    rate: p.tally.pass_rate == null ? null : Math.round(p.tally.pass_rate * 1000) / 10,
                  }))}
                  dataKey="hour"
                  connectNulls
                  series={[{ name: "rate", color: "indigo.6", label: t("report.passRate") }]}
                  unit="%"
                />
              </>
            )}
            {fixed.per_tag.length > 0 && (
              <>
                <Text fw={500}>{t("report.byTag")}</Text>
                <BarChart
                  h={220}
                  data={fixed.per_tag.map((g) => ({ tag: g.name, passed: g.tally.passed, failed: g.tally.failed, errors: g.tally.errors }))}
                  dataKey="tag"
                  type="stacked"
                  series={[
                    { name: "passed", color: "teal.6" },
                    { name: "failed", color: "red.6" },
                    { name: "errors", color: "gray.5" },
                  ]}
                />
              </>
            )}
          </Stack>
        </Tabs.Panel>

        <Tabs.Panel value="analysis" pt="md">
          <Stack>
            {report.analysis ? (
              <Stack gap="xs" data-testid="report-analysis">
                <Group gap="xs">
                  <Badge color={report.analysis.offline ? "gray" : "indigo"}>
                    {report.analysis.offline ? t("report.offlineTemplate") : report.analysis.model}
                  </Badge>
                  <Text size="xs" c="dimmed">
                    {when(report.analysis.created_at)}
                  </Text>
                </Group>
                {report.analysis.fallback_reason && (
                  <Text size="xs" c="orange">
                    {report.analysis.fallback_reason}
                  </Text>
                )}
                <Text style={{ whiteSpace: "pre-wrap" }}>{report.analysis.summary}</Text>
                <List size="sm">
                  {report.analysis.claims.map((c, i) => (
                    <List.Item key={i}>
                      {c.text}
                      {[...(c.run_ids ?? []), ...(c.session_ids ?? [])].length > 0 && (
                        <Text span size="xs" c="dimmed">
                          {" "}
                          [{[...(c.run_ids ?? []), ...(c.session_ids ?? [])].map((id) => id.slice(0, 8)).join(", ")}]
                        </Text>
                      )}
                    </List.Item>
                  ))}
                </List>
              </Stack>
            ) : (
              <Text c="dimmed">{t("report.noAnalysis")}</Text>
            )}
            <Button w="fit-content" variant="light" loading={busy} onClick={() => void analyse()} data-testid="generate-analysis">
              {report.analysis ? t("report.regenerate") : t("report.generate")}
            </Button>
            <ErrorAlert error={error} onClose={() => setError(null)} />
          </Stack>
        </Tabs.Panel>

        <Tabs.Panel value="comparison" pt="md">
          {cmp && cmp.periods.length > 0 ? (
            <Stack>
              <Group gap="xs">
                {cmp.pass_at_k.map((p) => (
                  <Badge key={p.k} variant="light">
                    pass^{p.k} {pct(p.value)}
                  </Badge>
                ))}
                {cmp.within_period_flip_rate != null && (
                  <Badge variant="light">
                    {t("report.flipRate")} {pct(cmp.within_period_flip_rate)}
                  </Badge>
                )}
              </Group>
              <BarChart
                h={220}
                data={[
                  ...[...cmp.periods].reverse().map((p) => ({ campaign: p.campaign_name, rate: Math.round((p.pass_rate ?? 0) * 1000) / 10 })),
                  { campaign: report.campaign.name, rate: Math.round((fixed.pass_rate ?? 0) * 1000) / 10 },
                ]}
                dataKey="campaign"
                unit="%"
                series={[{ name: "rate", color: "indigo.6", label: t("report.passRate") }]}
              />
              <Table>
                <Table.Tbody>
                  {cmp.periods.map((p) => (
                    <Table.Tr key={p.campaign_id}>
                      <Table.Td>{p.campaign_name}</Table.Td>
                      <Table.Td>{pct(p.pass_rate)}</Table.Td>
                      <Table.Td>
                        <Badge color={p.within_noise ? "gray" : (p.delta ?? 0) >= 0 ? "teal" : "red"} variant="light">
                          {p.within_noise ? t("report.withinNoise") : pct(p.delta)}
                        </Badge>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm">{p.verdict}</Text>
                        {p.warnings.map((w, i) => (
                          <Text key={i} size="xs" c="orange">
                            {w}
                          </Text>
                        ))}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Stack>
          ) : (
            <Text c="dimmed">{t("report.noComparison")}</Text>
          )}
        </Tabs.Panel>

        <Tabs.Panel value="exploration" pt="md">
          {!ex ? (
            <Text c="dimmed" data-testid="no-exploration">
              {t("report.noExploration")}
            </Text>
          ) : (
            <Stack data-testid="exploration-findings">
              <SimpleGrid cols={2}>
                <Stat label={t("report.achievement")} value={pct(ex.goal_achievement_rate)} testId="report-achievement" />
                <Stat label={t("view.sessions")} value={String(ex.sessions_total)} />
              </SimpleGrid>
              <Group gap="xs">
                {Object.entries(ex.sessions_by_end_reason).map(([reason, n]) => (
                  <Badge key={reason} variant="light" color="grape">
                    {reason} ×{n}
                  </Badge>
                ))}
                {Object.entries(ex.emotions).map(([emotion, n]) => (
                  <Badge key={emotion} variant="outline">
                    {emotion} ×{n}
                  </Badge>
                ))}
                {ex.simulator_faults > 0 && (
                  <Badge color="orange" variant="light">
                    {t("report.simulatorFaults")} {ex.simulator_faults}
                  </Badge>
                )}
              </Group>
              <Text fw={500}>{t("report.issues")}</Text>
              {ex.issues.length === 0 ? (
                <Text size="sm" c="dimmed">
                  {t("report.noIssues")}
                </Text>
              ) : (
                <Table data-testid="issue-list">
                  <Table.Tbody>
                    {ex.issues.map((issue, i) => (
                      <Table.Tr key={i}>
                        <Table.Td>
                          <Badge size="xs" variant="light" color={issue.kind === "blocker" ? "red" : "orange"}>
                            {issue.kind}
                          </Badge>
                        </Table.Td>
                        <Table.Td>{issue.text}</Table.Td>
                        <Table.Td>×{issue.count}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              )}
              {Object.keys(ex.judge.dimensions).length > 0 && (
                <>
                  <Text fw={500}>{t("session.judge")}</Text>
                  <Group gap="xs">
                    {Object.entries(ex.judge.dimensions).map(([dim, d]) => (
                      <Badge key={dim} variant="light">
                        {dim} {d.average?.toFixed(1) ?? "—"} (n={d.count})
                      </Badge>
                    ))}
                  </Group>
                  {ex.findings.slice(0, 10).map((f, i) => (
                    <Text key={i} size="sm">
                      <Badge size="xs" color={f.severity === "poor" ? "red" : "gray"} mr={4}>
                        {f.severity}
                      </Badge>
                      {f.dimension ? `${f.dimension}: ` : ""}
                      {f.text}
                    </Text>
                  ))}
                </>
              )}
              {ex.coverage.cells.length > 0 && (
                <>
                  <Text fw={500}>{t("report.coverage")}</Text>
                  <CoverageGrid grid={ex.coverage} />
                </>
              )}
              <Text fw={500}>{t("report.sessionList")}</Text>
              <Table highlightOnHover>
                <Table.Tbody>
                  {sessions.map((s) => (
                    <Table.Tr key={s.id} style={{ cursor: "pointer" }} onClick={() => props.onOpenSession(s)} data-testid="report-session-row">
                      <Table.Td>{personaName(s.persona)}</Table.Td>
                      <Table.Td>{goalTitle(s.goal)}</Table.Td>
                      <Table.Td>
                        <Badge size="sm">{s.status}</Badge>
                      </Table.Td>
                      <Table.Td>{s.experience ? (s.experience.goal_achieved ? "✓" : "✗") : "—"}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Stack>
          )}
        </Tabs.Panel>
      </Tabs>
    </Drawer>
  );
}

function CoverageGrid({ grid }: { grid: CoverageGridData }) {
  const { personas, goals, cells } = grid;
  return (
    <Table withTableBorder withColumnBorders data-testid="coverage-grid">
      <Table.Thead>
        <Table.Tr>
          <Table.Th />
          {goals.map((g) => (
            <Table.Th key={g}>{g}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {personas.map((p) => (
          <Table.Tr key={p}>
            <Table.Th>{p}</Table.Th>
            {goals.map((g) => {
              const c = cells.find((x) => x.persona_id === p && x.goal_id === g);
              const n = c?.sessions ?? 0;
              const ok = c?.achieved ?? 0;
              return (
                <Tooltip key={g} label={`${ok}/${n}`}>
                  <Table.Td bg={n === 0 ? "gray.1" : ok === n ? "teal.1" : ok === 0 ? "red.1" : "yellow.1"}>
                    {n === 0 ? "—" : `${ok}/${n}`}
                  </Table.Td>
                </Tooltip>
              );
            })}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
