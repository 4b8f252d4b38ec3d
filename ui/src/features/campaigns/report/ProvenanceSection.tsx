import { Badge, Group, Stack, Table, Text, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { CampaignReport } from "../../../api";
import { num } from "../../../components/format";
import { codeLabel } from "../../../components/labels";

/** What left this machine: every host the campaign contacted, per role. */
export function ProvenanceSection({ report }: { report: CampaignReport }) {
  const { t } = useTranslation();
  const hosts = report.provenance?.hosts ?? [];
  const outside = hosts.filter((h) => !h.loopback).length;
  return (
    <Stack gap="xs" data-testid="report-provenance">
      <Title order={5}>{t("report.provenance")}</Title>
      <Group gap="xs">
        <Badge color={outside === 0 ? "teal" : "orange"} variant="light" data-testid="provenance-verdict">
          {outside === 0 ? t("report.nothingLeft") : t("report.somethingLeft", { n: num(outside) })}
        </Badge>
        <Text size="sm" c="dimmed">
          {hosts.length === 0 ? t("report.noHosts") : t("report.loopbackOnly")}
        </Text>
      </Group>
      {hosts.length > 0 && (
        <Table striped withTableBorder data-testid="provenance-hosts">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("report.hostRole")}</Table.Th>
              <Table.Th>{t("report.host")}</Table.Th>
              <Table.Th>{t("report.requests")}</Table.Th>
              <Table.Th>{t("report.tokensInOut")}</Table.Th>
              <Table.Th>{t("report.onThisMachine")}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {hosts.map((h) => (
              <Table.Tr key={`${h.role} ${h.host}`}>
                <Table.Td>{codeLabel(t, "hostRole", h.role)}</Table.Td>
                <Table.Td>
                  <code>{h.host}</code>
                </Table.Td>
                <Table.Td>{num(h.requests)}</Table.Td>
                <Table.Td>
                  {num(h.tokens_in)} / {num(h.tokens_out)}
                </Table.Td>
                <Table.Td>{h.loopback ? t("common.yes") : t("common.no")}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
