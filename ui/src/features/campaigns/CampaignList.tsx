import { Button, Card, Group, Progress, Stack, Table, Text, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, type Campaign, type CampaignSummary, type Target } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useMayChange } from "../../components/identity";
import { num, pct } from "../../components/format";
import { Link } from "../../components/Link";
import { useLoad } from "../../components/useLoad";
import { CampaignForm } from "./CampaignForm";
import { LineBadge, StatusBadge } from "./labels";
import { PatrolAgentBar } from "./PatrolAgentBar";

type Row = { campaign: Campaign; summary: CampaignSummary | null };

/** The campaigns with their headline figures (from the tallies, never a whole report). */
async function loadRows(): Promise<{ rows: Row[]; targets: Target[] }> {
  const [campaigns, summaries, targets] = await Promise.all([api.listCampaigns(), api.campaignSummaries(), api.listTargets()]);
  const byId = new Map(summaries.map((s) => [s.campaign_id, s]));
  return { rows: campaigns.map((campaign) => ({ campaign, summary: byId.get(campaign.id) ?? null })), targets };
}

export function CampaignList({ onOpen }: { onOpen: (id: string) => void }) {
  const { t } = useTranslation();
  const [creating, setCreating] = useState(false);
  const mayChange = useMayChange();
  const { data, error, reload } = useLoad(loadRows, [], (e) => e.kind !== "session_changed");
  const targetName = (id: string) => data?.targets.find((x) => x.id === id)?.name ?? id.slice(0, 8);

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t("campaigns.title")}</Title>
        {mayChange && (
          <Button onClick={() => setCreating(true)} data-testid="new-campaign">
            {t("campaigns.new")}
          </Button>
        )}
      </Group>
      <PatrolAgentBar />
      <ErrorAlert error={error} />
      {data && data.rows.length === 0 && (
        <Card withBorder padding="xl" data-testid="campaigns-empty">
          <Title order={4}>{t("campaigns.emptyTitle")}</Title>
          <Text mt="sm" c="dimmed">
            {mayChange ? t("campaigns.emptyBody") : t("campaigns.emptyBodyViewer")}
          </Text>
          {mayChange && (
            <Button mt="md" w="fit-content" variant="light" onClick={() => setCreating(true)}>
              {t("campaigns.new")}
            </Button>
          )}
        </Card>
      )}
      {data && data.rows.length > 0 && (
        // A narrow window (or a high zoom) scrolls the table, not the page.
        <Table.ScrollContainer minWidth={760} type="native">
          <Table highlightOnHover verticalSpacing="sm" data-testid="campaign-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t("campaigns.name")}</Table.Th>
                <Table.Th>{t("campaigns.status")}</Table.Th>
                <Table.Th>{t("campaigns.line")}</Table.Th>
                <Table.Th>{t("campaigns.target")}</Table.Th>
                <Table.Th>{t("campaigns.progress")}</Table.Th>
                <Table.Th>{t("campaigns.passRate")}</Table.Th>
                <Table.Th>{t("campaigns.achievement")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {data.rows.map(({ campaign: c, summary }) => {
                const planned = summary?.runs_planned ?? 0;
                const done = summary?.runs_finished ?? 0;
                const errors = summary?.errors ?? 0;
                return (
                  <Table.Tr
                    key={c.id}
                    style={{ cursor: "pointer" }}
                    onClick={() => onOpen(c.id)}
                    data-testid="campaign-row"
                  >
                    <Table.Td maw={420} miw={180}>
                      {/* The row opens on a click anywhere; the name is the link a keyboard reaches. */}
                      <Link to={{ kind: "campaign", id: c.id, query: {} }} fw={500} c="inherit" style={{ overflowWrap: "anywhere" }} data-testid="campaign-link">
                        {c.name}
                      </Link>
                    </Table.Td>
                    <Table.Td>
                      <StatusBadge status={c.status} />
                    </Table.Td>
                    <Table.Td>
                      <LineBadge line={c.line} />
                    </Table.Td>
                    <Table.Td>{targetName(c.target_id)}</Table.Td>
                    <Table.Td miw={140}>
                      <Progress value={planned ? (100 * done) / planned : 0} size="sm" aria-label={t(errors > 0 ? "view.runsProgressErrored" : "view.runsProgress", { done: num(done), planned: num(planned), errors: num(errors) })} />
                      <Text size="xs" c="dimmed" data-testid="campaign-progress">
                        {num(done)}/{num(planned)}
                        {errors > 0 && (
                          <Text span size="xs" c="red">
                            {" · "}
                            {t("view.finishedErrored", { errors: num(errors) })}
                          </Text>
                        )}
                      </Text>
                    </Table.Td>
                    <Table.Td>{pct(summary?.pass_rate)}</Table.Td>
                    <Table.Td>{pct(summary?.goal_achievement_rate)}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {creating && (
        <CampaignForm
          onClose={() => setCreating(false)}
          onCreated={(c) => {
            setCreating(false);
            reload();
            onOpen(c.id);
          }}
        />
      )}
    </Stack>
  );
}
