import { Badge, Group, SimpleGrid, Stack, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { CampaignReport } from "../../../api";
import { ms, num, pct } from "../../../components/format";
import { codeLabel, targetModelLabel } from "../../../components/labels";
import { explorationOf } from "../labels";
import { CalibrationBadge, CalibrationSection } from "./CalibrationSection";
import { ProvenanceSection } from "./ProvenanceSection";
import { Stat } from "./Stat";
import { TasksTable } from "./TasksTable";

/** Headline figures: pass rate, runs, goal achievement, human ratings, latency, tokens, cost. */
export function ScoresTab({ report }: { report: CampaignReport }) {
  const { t } = useTranslation();
  const fixed = report.fixed;
  const human = report.human_review;
  const ex = explorationOf(report);
  const rubric = report.judge_calibration?.criteria.find((k) => k.criterion === "rubric");
  return (
    <Stack>
      <SimpleGrid cols={3}>
        <Stat
          label={t("report.passRate")}
          value={pct(fixed.pass_rate)}
          hint={fixed.pass_rate_interval ? t("ev.interval", { low: pct(fixed.pass_rate_interval.low), high: pct(fixed.pass_rate_interval.high) }) : undefined}
          testId="report-pass-rate"
        />
        <Stat
          label={t("view.finished")}
          value={`${num(fixed.runs_finished)}/${num(fixed.runs_planned)}`}
          hint={fixed.errors > 0 ? t("view.finishedErrored", { errors: num(fixed.errors) }) : undefined}
          testId="report-finished"
        />
        <Stat label={t("view.errors")} value={num(fixed.errors)} />
        <Stat label={t("view.passed")} value={num(fixed.passed)} />
        <Stat label={t("view.failed")} value={num(fixed.failed)} />
        <Stat label={t("report.achievement")} value={pct(ex?.goal_achievement_rate)} />
      </SimpleGrid>
      {human && (
        <Group gap="xs">
          <Badge variant="light">
            {t("ev.ratedMean", { label: t("report.runsRated"), n: num(human.runs_rated), mean: num(human.run_rating_mean, 1) })}
          </Badge>
          <Badge variant="light">
            {t("ev.ratedMean", {
              label: t("report.sessionsRated"),
              n: num(human.sessions_rated),
              mean: num(human.session_rating_mean, 1),
            })}
          </Badge>
          <Badge variant="light">{t("ev.labelValue", { label: t("report.agreement"), value: pct(human.agreement) })}</Badge>
        </Group>
      )}
      <Group gap="xs">
        <Badge variant="light">
          {report.target_name} · {targetModelLabel(t, report.target_model)}
        </Badge>
        {fixed.latency_p50_ms != null && <Badge variant="light">{t("ev.p50", { value: ms(fixed.latency_p50_ms) })}</Badge>}
        {fixed.latency_p95_ms != null && <Badge variant="light">{t("ev.p95", { value: ms(fixed.latency_p95_ms) })}</Badge>}
        <Badge variant="light">
          {t("ev.labelValue", { label: t("report.tokens"), value: `${num(fixed.tokens_in)}/${num(fixed.tokens_out)}` })}
        </Badge>
        {(fixed.cost ?? 0) > 0 && (
          <Badge variant="light">{t("ev.labelValue", { label: t("report.cost"), value: num(fixed.cost, 4) })}</Badge>
        )}
        {fixed.completion_rate != null && (
          <Badge variant="light">{t("ev.labelValue", { label: t("report.completion"), value: pct(fixed.completion_rate) })}</Badge>
        )}
        {fixed.key_field_coverage != null && (
          <Badge variant="light">{t("ev.labelValue", { label: t("report.keyFields"), value: pct(fixed.key_field_coverage) })}</Badge>
        )}
      </Group>
      <TasksTable rows={fixed.per_group_tasks ?? []} />
      {rubric && (
        <Group gap={4} wrap="nowrap" data-testid="rubric-judge">
          <Badge variant="light">{t("calibration.rubricJudge", { n: num(rubric.items) })}</Badge>
          <CalibrationBadge calibrated={rubric.calibrated} />
        </Group>
      )}
      {!ex && report.judge_calibration && <CalibrationSection calibration={report.judge_calibration} campaignId={report.campaign.id} />}
      {fixed.error_reasons.length > 0 && (
        <Stack gap={2}>
          <Text fw={500} size="sm">
            {t("report.errorReasons")}
          </Text>
          {fixed.error_reasons.map((e) => (
            <Text key={e.reason} size="sm">
              {t("ev.timesN", { what: codeLabel(t, "errorReason", e.reason), n: num(e.count) })}
            </Text>
          ))}
        </Stack>
      )}
      <ProvenanceSection report={report} />
    </Stack>
  );
}
