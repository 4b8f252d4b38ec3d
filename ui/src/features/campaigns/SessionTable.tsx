import { Group, Stack, Table, Text } from "@mantine/core";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { goalTitle, personaName, type ExplorationSession } from "../../api";
import { when } from "../../components/format";
import { EndReasonBadge, PlayedByBadge, SessionStatusBadge, TriggerBadge } from "../../components/labels";
import { Link } from "../../components/Link";
import { navigate, type Route } from "../../routing";
import { useEngineText } from "../../i18n/engine";
import type { Text as EngineText } from "../../api";
import { CodeSpans } from "../../components/CodeSpans";

/** Where a session row leads: the session, at a round when one is known. */
export type SessionLink = { turn: number | null; note?: EngineText | null };

/** Sessions with who played the user, status, end reason; each row opens the session. */
export function SessionTable({
  campaignId,
  sessions,
  linkOf,
  action,
  testId = "session-row",
}: {
  campaignId: string;
  sessions: ExplorationSession[];
  /** The round to open each session at (e.g. the turn behind an issue). */
  linkOf?: (s: ExplorationSession) => SessionLink;
  /** An action on the session, in a last column (its click does not open the row). */
  action?: (s: ExplorationSession, link: SessionLink) => ReactNode;
  testId?: string;
}) {
  const { t } = useTranslation();
  const tx = useEngineText();
  return (
    <Table highlightOnHover verticalSpacing="xs" data-testid="session-table">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>{t("session.persona")}</Table.Th>
          <Table.Th>{t("session.goal")}</Table.Th>
          <Table.Th>{t("session.status")}</Table.Th>
          <Table.Th>{t("ev.playedByTrigger")}</Table.Th>
          <Table.Th>{t("session.turns")}</Table.Th>
          <Table.Th>{t("session.endReason")}</Table.Th>
          {linkOf && <Table.Th>{t("ev.evidence")}</Table.Th>}
          {action && <Table.Th />}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {sessions.map((s) => {
          const link = linkOf?.(s) ?? { turn: null };
          const route: Route = { kind: "session", id: campaignId, sid: s.id, turn: link.turn };
          const go = () => navigate(route);
          return (
            <Table.Tr key={s.id} style={{ cursor: "pointer" }} onClick={go} data-testid={testId} data-session-id={s.id}>
              <Table.Td>
                <Link to={route} size="sm" data-testid="session-link">
                  {personaName(s.persona)}
                </Link>
                <Text size="xs" c="dimmed">
                  {when(s.started_at)}
                </Text>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{goalTitle(s.goal)}</Text>
              </Table.Td>
              <Table.Td>
                <SessionStatusBadge status={s.status} />
              </Table.Td>
              <Table.Td>
                <Stack gap={2} align="flex-start">
                  <PlayedByBadge session={s} bare />
                  <TriggerBadge trigger={s.trigger} bare />
                </Stack>
              </Table.Td>
              <Table.Td>
                <Text size="sm">{s.turn_count}</Text>
              </Table.Td>
              <Table.Td>
                <Group gap={4}>
                  <EndReasonBadge reason={s.end_reason} />
                  {/* The end reason "goal met" already says what an achieved record would say again. */}
                  {s.experience && !(s.experience.goal_achieved && s.end_reason === "user_goal_met") && (
                    <Text size="xs" c={s.experience.goal_achieved ? "teal" : "red"} data-testid="session-achieved">
                      {s.experience.goal_achieved ? t("ev.achieved") : t("ev.notAchieved")}
                    </Text>
                  )}
                </Group>
              </Table.Td>
              {linkOf && (
                <Table.Td>
                  {link.turn !== null ? (
                    <Text size="sm" data-testid="session-evidence-turn">
                      {t("ev.turnN", { n: link.turn })}
                      {link.note && (
                        <>
                          {" · "}
                          <CodeSpans text={tx(link.note)} />
                        </>
                      )}
                    </Text>
                  ) : (
                    <Text size="xs" c="dimmed">
                      {t("ev.wholeSession")}
                    </Text>
                  )}
                </Table.Td>
              )}
              {action && (
                <Table.Td onClick={(e) => e.stopPropagation()} style={{ whiteSpace: "nowrap" }}>
                  {action(s, link)}
                </Table.Td>
              )}
            </Table.Tr>
          );
        })}
      </Table.Tbody>
    </Table>
  );
}
