import { Button, Card, Checkbox, Group, Pagination, Select, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, type ImportedConversationSummary, type SeedSet } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { num, when } from "../../components/format";
import { useMayChange } from "../../components/identity";
import { Link } from "../../components/Link";
import { useLoad } from "../../components/useLoad";
import { WhyDisabled } from "../../components/WhyDisabled";
import { leave, navigate, type ProductionQuery, type Route } from "../../routing";
import { CampaignForm } from "../campaigns/CampaignForm";
import { ConversationDrawer } from "./ConversationDrawer";
import { ImportModal } from "./ImportModal";
import { SeedProposalModal } from "./SeedProposalModal";

export const CONVERSATIONS_PAGE = 50;
/** How long typing pauses before the list is filtered by the words typed. */
const TYPING_MS = 300;

/** One row: the preview opens the conversation (a link the keyboard reaches); the box selects it. */
function Row({
  c,
  route,
  selected,
  onSelect,
  targetName,
}: {
  c: ImportedConversationSummary;
  route: Route;
  selected: boolean;
  onSelect: (on: boolean) => void;
  targetName: string | null;
}) {
  const { t } = useTranslation();
  const preview = c.first_user || t("production.noUserTurn");
  return (
    <Table.Tr style={{ cursor: "pointer" }} onClick={() => navigate(route)} data-testid="conversation-row" data-conversation-id={c.id}>
      <Table.Td onClick={(e) => e.stopPropagation()}>
        <Checkbox
          checked={selected}
          onChange={(e) => onSelect(e.currentTarget.checked)}
          aria-label={t("production.selectRow", { preview: preview.slice(0, 60) })}
          data-testid="conversation-select"
        />
      </Table.Td>
      <Table.Td maw={420} miw={220}>
        <Link to={route} size="sm" c="inherit" style={{ overflowWrap: "anywhere" }} data-testid="conversation-link">
          {preview}
        </Link>
        <Text size="xs" c="dimmed" style={{ overflowWrap: "anywhere" }}>
          {targetName ? `${targetName} · ${c.key}` : c.key}
        </Text>
      </Table.Td>
      <Table.Td>{num(c.user_turns)}</Table.Td>
      <Table.Td>{num(c.messages)}</Table.Td>
      <Table.Td>{num(c.traces)}</Table.Td>
      <Table.Td>
        <Text size="sm" style={{ whiteSpace: "nowrap" }}>
          {c.model ?? "—"}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm" style={{ whiteSpace: "nowrap" }}>
          {c.source}
        </Text>
      </Table.Td>
      <Table.Td miw={150}>
        <Text size="sm">{when(c.started_at ?? c.imported_at)}</Text>
        <Text size="xs" c="dimmed">
          {t("production.importedAt", { at: when(c.imported_at) })}
        </Text>
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * Production conversations imported from OpenTelemetry traces: a list
 * filtered by target and words, an import, one conversation drafted into a
 * scenario, several proposed as seeds for a new campaign.
 */
export function ProductionPage({ query, conversation }: { query: ProductionQuery; conversation: string | null }) {
  const { t } = useTranslation();
  const mayChange = useMayChange();
  const targets = useLoad(() => api.listAllTargets(), []);
  const page = query.page ?? 1;
  const list = useLoad(
    () =>
      api.listConversations({
        target_id: query.target ?? null,
        text: query.text ?? null,
        offset: (page - 1) * CONVERSATIONS_PAGE,
        limit: CONVERSATIONS_PAGE,
      }),
    [query.target, query.text, page],
  );
  const [words, setWords] = useState(query.text ?? "");
  const [selected, setSelected] = useState<string[]>([]);
  const [importing, setImporting] = useState(false);
  const [proposing, setProposing] = useState(false);
  const [seeds, setSeeds] = useState<SeedSet | null>(null);

  const setQuery = (q: Partial<ProductionQuery>) =>
    navigate({ kind: "production", conversation, query: { ...query, page: undefined, ...q } }, { replace: true });
  // The words typed filter the list once typing pauses.
  useEffect(() => {
    const typed = words.trim() || undefined;
    if (typed === query.text) return undefined;
    const timer = window.setTimeout(() => setQuery({ text: typed }), TYPING_MS);
    return () => window.clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [words]);

  const all = targets.data ?? [];
  const active = all.filter((x) => !x.archived_at);
  const targetName = (id: string | null | undefined) => (id ? (all.find((x) => x.id === id)?.name ?? id.slice(0, 8)) : null);
  const rows = list.data?.conversations ?? [];
  const total = list.data?.total ?? 0;
  const listRoute: Route = { kind: "production", query, conversation: null };
  const shown = rows.map((c) => c.id);
  const allShown = shown.length > 0 && shown.every((id) => selected.includes(id));
  const select = (ids: string[], on: boolean) => setSelected(on ? [...new Set([...selected, ...ids])] : selected.filter((x) => !ids.includes(x)));
  // The new campaign's target: the list's filter, else the chosen conversations' own.
  const seedTarget = query.target ?? rows.find((c) => selected.includes(c.id) && c.target_id)?.target_id ?? null;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t("production.title")}</Title>
        {mayChange && (
          <Group gap="xs">
            <WhyDisabled reason={selected.length > 0 ? null : t("production.selectFirst")} testId="propose-disabled-reason">
              <Button variant="light" disabled={selected.length === 0} onClick={() => setProposing(true)} data-testid="propose-seeds">
                {t("production.propose", { n: num(selected.length) })}
              </Button>
            </WhyDisabled>
            <Button onClick={() => setImporting(true)} data-testid="import-traces">
              {t("production.importButton")}
            </Button>
          </Group>
        )}
      </Group>
      <Text size="sm" c="dimmed">
        {t("production.intro")}
      </Text>
      <Group gap="xs" align="flex-end" data-testid="conversation-filters">
        <Select
          label={t("production.target")}
          placeholder={t("ev.any")}
          clearable
          w={220}
          data={all.map((x) => ({ value: x.id, label: x.name }))}
          value={query.target ?? null}
          onChange={(v) => setQuery({ target: v ?? undefined })}
          data-testid="conversation-filter-target"
        />
        <TextInput
          label={t("production.words")}
          placeholder={t("production.wordsPlaceholder")}
          w={280}
          value={words}
          onChange={(e) => setWords(e.currentTarget.value)}
          data-testid="conversation-filter-text"
        />
        <Text size="sm" c="dimmed" data-testid="conversation-total">
          {query.target || query.text ? t("production.matching", { count: total, n: num(total) }) : t("production.total", { count: total, n: num(total) })}
        </Text>
        {selected.length > 0 && (
          <Button size="xs" variant="subtle" onClick={() => setSelected([])} data-testid="clear-selection">
            {t("production.clearSelection", { n: num(selected.length) })}
          </Button>
        )}
      </Group>
      <ErrorAlert error={list.error ?? targets.error} />
      {list.data && total === 0 && !query.target && !query.text ? (
        <Card withBorder padding="xl" data-testid="production-empty">
          <Title order={4}>{t("production.emptyTitle")}</Title>
          <Text mt="sm" c="dimmed">
            {t("production.emptyBody")}
          </Text>
        </Card>
      ) : (
        <Table.ScrollContainer minWidth={900} type="native">
          <Table highlightOnHover verticalSpacing="xs" data-testid="conversation-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th w={40}>
                  <Checkbox
                    checked={allShown}
                    indeterminate={!allShown && shown.some((id) => selected.includes(id))}
                    onChange={(e) => select(shown, e.currentTarget.checked)}
                    aria-label={t("production.selectPage")}
                    data-testid="conversation-select-page"
                  />
                </Table.Th>
                <Table.Th>{t("production.firstTurn")}</Table.Th>
                <Table.Th>{t("production.turns")}</Table.Th>
                <Table.Th>{t("production.messages")}</Table.Th>
                <Table.Th>{t("production.tracesColumn")}</Table.Th>
                <Table.Th>{t("production.model")}</Table.Th>
                <Table.Th>{t("production.source")}</Table.Th>
                <Table.Th>{t("production.started")}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((c) => (
                <Row
                  key={c.id}
                  c={c}
                  route={{ kind: "production", query, conversation: c.id }}
                  selected={selected.includes(c.id)}
                  onSelect={(on) => select([c.id], on)}
                  targetName={query.target ? null : targetName(c.target_id)}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {list.data && rows.length === 0 && (query.target || query.text) && (
        <Text size="sm" c="dimmed">
          {t("production.noMatch")}
        </Text>
      )}
      {total > CONVERSATIONS_PAGE && (
        <Pagination
          total={Math.ceil(total / CONVERSATIONS_PAGE)}
          value={page}
          onChange={(p) => navigate({ kind: "production", conversation, query: { ...query, page: p } }, { replace: true })}
          data-testid="conversation-pages"
        />
      )}
      {conversation && <ConversationDrawer id={conversation} targetName={(id) => targetName(id) ?? id} onClose={() => leave(listRoute)} />}
      {importing && (
        <ImportModal targets={active} defaultTarget={query.target ?? null} onClose={() => setImporting(false)} onImported={list.reload} />
      )}
      {proposing && (
        <SeedProposalModal
          ids={selected}
          onClose={() => setProposing(false)}
          onUse={(s) => {
            setProposing(false);
            setSeeds(s);
          }}
        />
      )}
      {seeds && (
        <CampaignForm
          seeds={seeds}
          targetId={seedTarget}
          seedsNote={t("production.seedsAdded", { personas: num(seeds.personas?.length ?? 0), goals: num(seeds.goals?.length ?? 0) })}
          onClose={() => setSeeds(null)}
          onCreated={(c) => {
            setSeeds(null);
            navigate({ kind: "campaign", id: c.id, query: {} });
          }}
        />
      )}
    </Stack>
  );
}
