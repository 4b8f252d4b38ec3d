import { Badge, Button, Card, Drawer, Group, Rating, Stack, Table, Text, Textarea, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type Run } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { when } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { VerdictBadge } from "./labels";

/** One fixed-scenario run: its turns, check results and a human rating. */
export function RunDrawer({ run, title, onClose }: { run: Run; title: string; onClose: () => void }) {
  const { t } = useTranslation();
  const turns = useLoad(() => api.runTurns(run.id), [run.id], run.status !== "done");
  const [rating, setRating] = useState(0);
  const [comment, setComment] = useState("");
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const rate = async () => {
    try {
      await api.addReview({ subject_kind: "run", subject_id: run.id, rating, comment });
      setSaved(true);
      setError(null);
    } catch (e) {
      setError(asApiError(e));
    }
  };

  return (
    <Drawer opened onClose={onClose} position="right" size="xl" title={`${t("run.title")}: ${title}`} data-testid="run-drawer">
      <Stack>
        <Group gap="xs">
          <VerdictBadge verdict={run.verdict} status={run.status} />
          {run.error_reason && (
            <Badge color="gray" variant="light">
              {run.error_reason}
            </Badge>
          )}
          <Text size="xs" c="dimmed">
            {when(run.started_at ?? run.scheduled_at)}
          </Text>
          {run.metrics && (
            <Text size="xs" c="dimmed">
              · {run.metrics.latency_ms_max} ms max · {run.metrics.tokens_in}/{run.metrics.tokens_out} tokens
            </Text>
          )}
        </Group>
        <Title order={5}>{t("run.checks")}</Title>
        <Table>
          <Table.Tbody>
            {run.check_results.map((c, i) => (
              <Table.Tr key={i}>
                <Table.Td>#{c.turn + 1}</Table.Td>
                <Table.Td>
                  <Badge size="sm" color={c.passed ? "teal" : "red"} variant="light">
                    {c.kind}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  <Text size="sm">{c.detail}</Text>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Title order={5}>{t("session.conversation")}</Title>
        <ErrorAlert error={turns.error} />
        <Stack gap="xs" data-testid="run-conversation">
          {(turns.data ?? []).map((turn) => (
            <Card
              key={turn.seq}
              padding="xs"
              withBorder
              bg={turn.role === "user" ? "gray.0" : "indigo.0"}
              ml={turn.role === "user" ? 0 : "xl"}
              mr={turn.role === "user" ? "xl" : 0}
            >
              <Text size="xs" c="dimmed">
                {turn.role === "user" ? t("run.scriptedUser") : t("session.target")}
                {turn.latency_ms != null ? ` · ${turn.latency_ms} ms` : ""}
              </Text>
              <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
                {turn.content}
              </Text>
              {turn.tool_calls.map((c) => (
                <Text key={c.id} size="xs" ff="monospace">
                  {c.name}({JSON.stringify(c.arguments)})
                </Text>
              ))}
            </Card>
          ))}
        </Stack>
        <Title order={5}>{t("session.rate")}</Title>
        <Group>
          <Rating value={rating} onChange={setRating} />
          <Textarea flex={1} autosize minRows={1} placeholder={t("session.comment")} value={comment} onChange={(e) => setComment(e.currentTarget.value)} />
          <Button size="xs" disabled={rating === 0} onClick={() => void rate()}>
            {t("session.submitRating")}
          </Button>
        </Group>
        {saved && (
          <Text size="sm" c="green">
            {t("session.rated")}
          </Text>
        )}
        <ErrorAlert error={error} onClose={() => setError(null)} />
      </Stack>
    </Drawer>
  );
}
