import { Badge, Button, Card, Drawer, Group, List, Rating, Stack, Text, Textarea, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, goalTitle, judgeFacts, judgeFindings, judgeScores, personaName, type ApiError, type ExplorationSession } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { when } from "../../components/format";
import { useLoad } from "../../components/useLoad";

function Score({ label, score, evidence }: { label: string; score: number | null; evidence: string | null }) {
  return (
    <Group gap="xs" align="flex-start" wrap="nowrap">
      <Badge variant="light" miw={160}>
        {label}: {score ?? "—"}
      </Badge>
      <Text size="sm">{evidence ?? ""}</Text>
    </Group>
  );
}

/** One exploration session: conversation, experience record, judge review. */
export function SessionDrawer({ session: initial, onClose }: { session: ExplorationSession; onClose: () => void }) {
  const { t } = useTranslation();
  const transcript = useLoad(() => api.sessionMessages(initial.id), [initial.id], initial.status === "running");
  const session: ExplorationSession = transcript.data ?? initial;
  const messages = transcript.data?.messages ?? [];
  const [rating, setRating] = useState(0);
  const [comment, setComment] = useState("");
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const exp = session.experience;
  const judge = session.judge_review;

  const rate = async () => {
    try {
      await api.addReview({ subject_kind: "session", subject_id: session.id, rating, comment });
      setSaved(true);
      setError(null);
    } catch (e) {
      setError(asApiError(e));
    }
  };

  return (
    <Drawer opened onClose={onClose} position="right" size="xl" title={t("session.title")} data-testid="session-drawer">
      <Stack>
        <Group gap="xs">
          <Badge>{session.status}</Badge>
          <Badge variant="outline">{session.trigger}</Badge>
          {session.end_reason && (
            <Badge color="grape" variant="light" data-testid="session-end-reason">
              {t("session.endReason")}: {session.end_reason}
            </Badge>
          )}
          <Text size="xs" c="dimmed">
            {t("session.started")} {when(session.started_at)}
          </Text>
        </Group>
        <Text size="sm">
          <b>{t("session.persona")}:</b> {personaName(session.persona)} · <b>{t("session.goal")}:</b> {goalTitle(session.goal)}
        </Text>

        <Title order={5}>{t("session.conversation")}</Title>
        <ErrorAlert error={transcript.error} />
        <Stack gap="xs" data-testid="session-conversation">
          {messages.map((turn, i) => (
            <Card
              key={i}
              padding="xs"
              withBorder
              bg={turn.role === "user" ? "gray.0" : "indigo.0"}
              ml={turn.role === "user" ? 0 : "xl"}
              mr={turn.role === "user" ? "xl" : 0}
            >
              <Text size="xs" c="dimmed">
                {turn.role === "user" ? t("session.user") : t("session.target")}
                {turn.latency_ms != null ? ` · ${turn.latency_ms} ms` : ""}
              </Text>
              <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
                {turn.content}
              </Text>
            </Card>
          ))}
        </Stack>

        <Title order={5}>{t("session.experience")}</Title>
        {exp ? (
          <Stack gap={4} data-testid="session-experience">
            <Text size="sm">
              {t("session.goalAchieved")}: {exp.goal_achieved ? t("common.yes") : t("common.no")} · {t("session.emotion")}:{" "}
              {exp.emotion}
            </Text>
            {exp.blockers.length > 0 && (
              <>
                <Text size="sm" fw={500}>
                  {t("session.blockers")}
                </Text>
                <List size="sm">{exp.blockers.map((b, i) => <List.Item key={i}>{b}</List.Item>)}</List>
              </>
            )}
            {exp.misled.length > 0 && (
              <>
                <Text size="sm" fw={500}>
                  {t("session.misled")}
                </Text>
                <List size="sm">{exp.misled.map((b, i) => <List.Item key={i}>{b}</List.Item>)}</List>
              </>
            )}
            {exp.notes && (
              <Text size="sm" style={{ whiteSpace: "pre-wrap" }}>
                {t("session.notes")}: {exp.notes}
              </Text>
            )}
          </Stack>
        ) : (
          <Text size="sm" c="dimmed">
            {t("session.noExperience")}
          </Text>
        )}

        <Title order={5}>{t("session.judge")}</Title>
        {judge ? (
          <Stack gap={4} data-testid="session-judge">
            <Group gap="xs">
              {judgeFacts(judge).map((f) => (
                <Badge key={f.key} variant="outline" color={f.key === "error" ? "red" : "gray"}>
                  {f.key}: {f.value}
                </Badge>
              ))}
            </Group>
            {judgeScores(judge).map((d) => (
              <Score key={d.dimension} label={d.dimension} score={d.score} evidence={d.evidence} />
            ))}
            {judgeFindings(judge).map((f, i) => (
              <Text key={i} size="sm">
                <Badge size="xs" mr={4} color={f.grade === "poor" ? "red" : "gray"}>
                  {f.grade}
                </Badge>
                {f.dimension ? `${f.dimension}: ` : ""}
                {f.text}
              </Text>
            ))}
          </Stack>
        ) : (
          <Text size="sm" c="dimmed">
            {session.judge_status === "pending" ? t("session.judgePending") : t("session.noJudge")}
          </Text>
        )}

        <Title order={5}>{t("session.rate")}</Title>
        <Group>
          <Rating value={rating} onChange={setRating} data-testid="session-rating" />
          <Textarea
            flex={1}
            autosize
            minRows={1}
            placeholder={t("session.comment")}
            value={comment}
            onChange={(e) => setComment(e.currentTarget.value)}
          />
          <Button size="xs" disabled={rating === 0} onClick={() => void rate()} data-testid="session-rate-submit">
            {t("session.submitRating")}
          </Button>
        </Group>
        {saved && (
          <Text size="sm" c="green" data-testid="session-rated">
            {t("session.rated")}
          </Text>
        )}
        <ErrorAlert error={error} onClose={() => setError(null)} />
      </Stack>
    </Drawer>
  );
}
