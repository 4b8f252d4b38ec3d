import { Badge, Button, Group, Stack, Table, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { JudgeCalibration } from "../../../api";
import { num, pct } from "../../../components/format";
import { codeLabel } from "../../../components/labels";
import { navigate } from "../../../routing";

function fixed2(v: number | null): string {
  return num(v, 2);
}

/** A criterion's judge figures: calibrated against people, or advisory until then. */
export function CalibrationBadge({ calibrated }: { calibrated: boolean }) {
  const { t } = useTranslation();
  return (
    <Badge size="sm" variant="light" color={calibrated ? "green" : "yellow"} data-testid="calibration-badge">
      {calibrated ? t("calibration.calibrated") : t("calibration.advisory")}
    </Badge>
  );
}

/**
 * Judge-human agreement per criterion (blind labels, kappa with its
 * interval), the rubric checks of fixed runs among them, and the judge's
 * self-agreement.
 */
export function CalibrationSection({ calibration, campaignId }: { calibration: JudgeCalibration; campaignId: string }) {
  const { t } = useTranslation();
  const c = calibration;
  return (
    <Stack gap="xs" data-testid="judge-calibration">
      <Group justify="space-between" gap="xs">
        <Text fw={600}>{t("calibration.title")}</Text>
        <Button size="xs" variant="light" onClick={() => navigate({ kind: "blind", id: campaignId })} data-testid="calibration-open-blind">
          {t("blind.open")}
        </Button>
      </Group>
      <Text size="xs" c="dimmed">
        {t("calibration.explain", { kappa: num(c.policy.min_kappa, 2), items: num(c.policy.min_items) })}
      </Text>
      {c.criteria.some((k) => k.criterion !== "rubric") && (
        <Text size="sm" data-testid="calibration-counts">
          {t("calibration.counts", { count: c.unlabelled, labelled: num(c.labelled), unlabelled: num(c.unlabelled) })}
        </Text>
      )}
      {c.criteria.some((k) => k.criterion === "rubric") && (
        <Text size="sm" data-testid="calibration-run-counts">
          {t("calibration.runCounts", { labelled: num(c.runs_labelled), unlabelled: num(c.runs_unlabelled) })}
        </Text>
      )}
      <Table data-testid="calibration-table">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{t("blind.criterion")}</Table.Th>
            <Table.Th>{t("calibration.items")}</Table.Th>
            <Table.Th>{t("calibration.agreement")}</Table.Th>
            <Table.Th>{t("calibration.kappa")}</Table.Th>
            <Table.Th>{t("calibration.status")}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {c.criteria.map((k) => (
            <Table.Tr key={k.criterion} data-testid={`calibration-row-${k.criterion}`}>
              <Table.Td>{codeLabel(t, "dimension", k.criterion)}</Table.Td>
              <Table.Td data-testid="calibration-n">{num(k.items)}</Table.Td>
              <Table.Td>{pct(k.agreement)}</Table.Td>
              <Table.Td data-testid="calibration-kappa">
                {k.kappa === null ? fixed2(null) : t("calibration.kappaValue", { kappa: fixed2(k.kappa), low: fixed2(k.kappa_low), high: fixed2(k.kappa_high) })}
              </Table.Td>
              <Table.Td>
                <CalibrationBadge calibrated={k.calibrated} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {c.consistency && (
        <>
          <Text fw={600}>{t("calibration.consistencyTitle")}</Text>
          <Text size="xs" c="dimmed">
            {t("calibration.consistencyExplain", { min: pct(c.policy.min_self_agreement) })}
          </Text>
          <Table data-testid="consistency-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("blind.criterion")}</Table.Th>
                <Table.Th>{t("calibration.twice")}</Table.Th>
                <Table.Th>{t("calibration.selfAgreement")}</Table.Th>
                <Table.Th>{t("calibration.status")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {c.consistency.map((k) => (
                <Table.Tr key={k.criterion}>
                  <Table.Td>{codeLabel(t, "dimension", k.criterion)}</Table.Td>
                  <Table.Td>{num(k.items)}</Table.Td>
                  <Table.Td>{pct(k.self_agreement)}</Table.Td>
                  <Table.Td>
                    <Badge size="sm" variant="light" color={k.contradicts ? "red" : "green"} data-testid="consistency-badge">
                      {k.contradicts ? t("calibration.contradicts") : t("calibration.consistent")}
                    </Badge>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  );
}
