import { Badge, Button, Code, Drawer, Group, Stack, Text, Title } from "@mantine/core";
import type { TFunction } from "i18next";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, type ImportedConversation } from "../../api";
import { Conversation, type ConversationTurn } from "../../components/Conversation";
import { ErrorAlert } from "../../components/ErrorAlert";
import { num, when } from "../../components/format";
import { useMayChange } from "../../components/identity";
import { useLoad } from "../../components/useLoad";
import { useUiLanguage } from "../../i18n/engine";
import { PackDraftModal } from "../campaigns/RegressionModal";

/** The conversation's messages as turns: tool calls under the reply that made them, results labelled by their tool. */
function turnsOf(t: TFunction, c: ImportedConversation): ConversationTurn[] {
  const names = new Map<string, string>();
  for (const m of c.messages) for (const call of m.tool_calls ?? []) names.set(call.id, call.name);
  return c.messages.map((m, i) => {
    const calls = (m.tool_calls ?? []).map((call) => (
      <Text key={call.id} size="xs" ff="monospace" style={{ overflowWrap: "anywhere" }} data-testid="tool-call">
        {t("production.toolCall", { call: `${call.name}(${JSON.stringify(call.arguments)})` })}
      </Text>
    ));
    if (m.role === "user") return { key: i, role: "user", content: m.content };
    if (m.role === "system") return { key: i, role: "system", label: t("production.system"), content: m.content };
    if (m.role === "tool") {
      const name = m.tool_call_id ? names.get(m.tool_call_id) : undefined;
      return { key: i, role: "tool", label: name ? t("production.toolResultOf", { name }) : t("production.toolResult"), content: m.content };
    }
    return { key: i, role: "target", content: m.content, extra: calls.length > 0 ? calls : undefined };
  });
}

/** One production conversation: its messages, tool calls and traces; drafted into a scenario. */
export function ConversationDrawer({ id, targetName, onClose }: { id: string; targetName: (id: string) => string; onClose: () => void }) {
  const { t } = useTranslation();
  const lang = useUiLanguage();
  const mayChange = useMayChange();
  const loaded = useLoad(() => api.getConversation(id), [id]);
  const [drafting, setDrafting] = useState(false);
  const c = loaded.data;

  return (
    <Drawer opened onClose={onClose} position="right" size="xl" title={t("production.conversationTitle")} data-testid="conversation-drawer">
      <ErrorAlert error={loaded.error} />
      {!c ? (
        !loaded.error && <Text c="dimmed">{t("common.loading")}</Text>
      ) : (
        <Stack data-conversation-id={c.id}>
          <Group gap="xs">
            {c.target_id && <Badge variant="light">{targetName(c.target_id)}</Badge>}
            <Badge variant="light" color="gray">
              {t("production.sourceIs", { source: c.source })}
            </Badge>
            {c.model && (
              <Badge variant="light" color="gray">
                {t("production.modelIs", { model: c.model })}
              </Badge>
            )}
          </Group>
          <Text size="sm" c="dimmed">
            {t("production.times", { started: when(c.started_at), imported: when(c.imported_at), updated: when(c.updated_at) })}
          </Text>
          <Stack gap={4} data-testid="conversation-lineage">
            <Text size="sm" fw={500}>
              {t("production.lineage", { key: c.key })}
            </Text>
            <Text size="xs" c="dimmed">
              {t("production.traces", { count: c.trace_ids.length, n: num(c.trace_ids.length) })}
            </Text>
            <Group gap={4}>
              {c.trace_ids.map((tr) => (
                <Code key={tr} data-testid="trace-id">
                  {tr}
                </Code>
              ))}
            </Group>
            {(c.tools ?? []).length > 0 && (
              <Text size="xs" c="dimmed">
                {t("production.toolsOffered", { tools: (c.tools ?? []).map((x) => x.name).join(", ") })}
              </Text>
            )}
          </Stack>
          {mayChange && (
            <Button w="fit-content" onClick={() => setDrafting(true)} data-testid="draft-scenario">
              {t("production.draft")}
            </Button>
          )}
          <Title order={5}>{t("session.conversation")}</Title>
          <Conversation
            testId="production-conversation"
            turns={turnsOf(t, c)}
            userLabel={t("production.user")}
            targetLabel={t("speaker.targetPlain")}
            highlight={null}
          />
        </Stack>
      )}
      {drafting && c && (
        <PackDraftModal
          title={t("production.draftTitle")}
          load={() => api.draftFromConversation(c.id, null, lang)}
          deps={[c.id, lang]}
          lineage={(d) => t("production.draftLineage", { key: d.lineage.key, traces: d.lineage.trace_ids.join(", ") })}
          explain={t("production.draftExplain")}
          saved={(pack, ids) => t("production.draftSaved", { pack, ids })}
          onClose={() => setDrafting(false)}
        />
      )}
    </Drawer>
  );
}
