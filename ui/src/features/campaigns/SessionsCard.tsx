import { Card, Group, Pagination, Select, Text, Title } from "@mantine/core";
import { useTranslation } from "react-i18next";
import { api, type Campaign, type SessionStatus } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { minutes, num } from "../../components/format";
import { codeLabel } from "../../components/labels";
import { useLoad } from "../../components/useLoad";
import { navigate, type CampaignQuery } from "../../routing";
import { SessionTable } from "./SessionTable";

export const SESSIONS_PAGE = 25;
const STATUSES: SessionStatus[] = ["running", "completed", "failed", "expired"];

/** The campaign's exploration sessions, one page from the server, live. */
export function SessionsCard({
  campaign: c,
  query,
  live,
  started,
}: {
  campaign: Campaign;
  query: CampaignQuery;
  live: boolean;
  /** Sessions started so far (all statuses), as the report counts them. */
  started: number | null;
}) {
  const { t } = useTranslation();
  const page = query.spage ?? 1;
  const sessions = useLoad(
    () => api.searchSessions(c.id, { status: STATUSES.find((s) => s === query.status) ?? null, offset: (page - 1) * SESSIONS_PAGE, limit: SESSIONS_PAGE }),
    [c.id, query.status, page],
    live && ((e) => e.campaign_id === c.id && e.kind !== "run_finished"),
  );
  const budget = c.effective_budget;
  const total = sessions.data?.total ?? 0;
  const setQuery = (q: Partial<CampaignQuery>) =>
    navigate({ kind: "campaign", id: c.id, query: { ...query, spage: undefined, ...q } }, { replace: true });

  return (
    <Card withBorder data-testid="sessions-card">
      <Title order={4}>{t("view.sessions")}</Title>
      <Text size="xs" c="dimmed" data-testid="sessions-budget">
        {t("ev.budgetLine", {
          used: num(started ?? (query.status ? null : total)),
          max: num(budget.max_sessions),
          turns: num(budget.max_turns),
          interval: minutes(budget.min_interval_minutes ?? 0),
          personas: num(c.seed_set.personas?.length ?? 0),
          goals: num(c.seed_set.goals?.length ?? 0),
        })}
      </Text>
      <Group mt="xs" gap="xs" align="flex-end">
        <Select
          label={t("session.status")}
          placeholder={t("ev.any")}
          clearable
          w={180}
          value={query.status ?? null}
          onChange={(v) => setQuery({ status: v ?? undefined })}
          data={STATUSES.map((s) => ({ value: s, label: codeLabel(t, "sessionStatus", s) }))}
          data-testid="sessions-filter-status"
        />
      </Group>
      <ErrorAlert error={sessions.error} />
      {sessions.data && sessions.data.sessions.length === 0 ? (
        <Text size="sm" c="dimmed" mt="sm">
          {query.status ? t("ev.noSessionMatches") : t("view.noSessions")}
        </Text>
      ) : (
        <SessionTable campaignId={c.id} sessions={sessions.data?.sessions ?? []} />
      )}
      {total > SESSIONS_PAGE && (
        <Pagination
          mt="sm"
          total={Math.ceil(total / SESSIONS_PAGE)}
          value={page}
          onChange={(p) => navigate({ kind: "campaign", id: c.id, query: { ...query, spage: p } }, { replace: true })}
          data-testid="sessions-pages"
        />
      )}
    </Card>
  );
}
