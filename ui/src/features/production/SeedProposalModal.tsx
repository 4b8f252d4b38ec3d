import { Alert, Badge, Button, Card, Group, Modal, ScrollArea, Stack, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { Goal, Persona, SeedSet } from "../../api";
import { CodeSpans } from "../../components/CodeSpans";
import { ErrorAlert } from "../../components/ErrorAlert";
import { num } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { WhyDisabled } from "../../components/WhyDisabled";
import { useEngineText, useUiLanguage } from "../../i18n/engine";
import { lineageOf, propose } from "./proposal";

/** The conversation and traces a proposed seed comes from. */
function Lineage({ seed }: { seed: Persona | Goal }) {
  const { t } = useTranslation();
  const l = lineageOf(seed);
  if (!l) return null;
  return (
    <Text size="xs" c="dimmed" style={{ overflowWrap: "anywhere" }} data-testid="seed-lineage">
      {t("production.seedLineage", { count: l.keys.length, keys: l.keys.join(", "), traces: l.traceIds.join(", ") })}
    </Text>
  );
}

function PersonaCard({ p }: { p: Persona }) {
  const { t } = useTranslation();
  const style = typeof p.style === "string" ? p.style : null;
  return (
    <Card withBorder padding="xs" data-testid="proposed-persona">
      <Group gap="xs">
        <Text size="sm" fw={600}>
          {p.name}
        </Text>
        {p.language && (
          <Badge variant="light" color="gray">
            {p.language === "zh" || p.language === "en" ? t(`seeds.lang_${p.language}`) : p.language}
          </Badge>
        )}
        {style && (
          <Badge variant="light" color="gray">
            {style === "terse" || style === "detailed" ? t(`production.style_${style}`) : style}
          </Badge>
        )}
        {p.patience != null && (
          <Badge variant="light" color="gray">
            {t("production.patience", { n: num(p.patience) })}
          </Badge>
        )}
      </Group>
      {p.description && (
        <Text size="sm" mt={4} style={{ overflowWrap: "anywhere" }}>
          {p.description}
        </Text>
      )}
      <Lineage seed={p} />
    </Card>
  );
}

function GoalCard({ g }: { g: Goal }) {
  const { t } = useTranslation();
  const slots = Object.entries(g.slots ?? {});
  return (
    <Card withBorder padding="xs" data-testid="proposed-goal">
      <Group gap="xs">
        <Text size="sm" fw={600} style={{ overflowWrap: "anywhere" }}>
          {g.title}
        </Text>
      </Group>
      {slots.length > 0 && (
        <Text size="xs" mt={4} style={{ overflowWrap: "anywhere" }}>
          {t("production.slots", { slots: slots.map(([k, v]) => `${k} = ${typeof v === "string" ? v : JSON.stringify(v)}`).join(" · ") })}
        </Text>
      )}
      <Lineage seed={g} />
    </Card>
  );
}

/**
 * Personas and goals proposed from the chosen conversations, each with its
 * traces; `onUse` takes them into a new campaign's seed set.
 */
export function SeedProposalModal({ ids, onClose, onUse }: { ids: string[]; onClose: () => void; onUse: (seeds: SeedSet) => void }) {
  const { t } = useTranslation();
  const tx = useEngineText();
  const lang = useUiLanguage();
  const proposal = useLoad(() => propose(ids, lang), [ids.join(","), lang]);
  const p = proposal.data;
  const personas = p?.seeds.personas ?? [];
  const goals = p?.seeds.goals ?? [];

  return (
    <Modal opened onClose={onClose} title={t("production.seedsTitle")} size="xl" centered data-testid="seed-proposal">
      <Stack>
        <ErrorAlert error={proposal.error} />
        {!p && !proposal.error && <Text c="dimmed">{t("common.loading")}</Text>}
        {p && (
          <>
            <Stack gap={2}>
              <Text size="sm" data-testid="seed-proposal-intro">
                {t("production.seedsIntro", { conversations: num(ids.length), personas: num(personas.length), goals: num(goals.length) })}
              </Text>
              <Text size="sm" c="dimmed" data-testid="seed-proposed-by" data-proposer={p.proposedBy}>
                {t(`production.proposedBy_${p.proposedBy}`)}
              </Text>
            </Stack>
            {p.analystProblem && (
              <Alert color="orange" variant="light" data-testid="seed-analyst-problem">
                <CodeSpans text={tx(p.analystProblem)} />
              </Alert>
            )}
            {personas.length === 0 && goals.length === 0 && (
              <Text size="sm" c="dimmed">
                {t("production.seedsNone")}
              </Text>
            )}
            <ScrollArea.Autosize mah="55vh">
              <Stack gap="xs">
                {personas.length > 0 && (
                  <Text size="sm" fw={500}>
                    {t("form.personas")}
                  </Text>
                )}
                {personas.map((x) => (
                  <PersonaCard key={x.id} p={x} />
                ))}
                {goals.length > 0 && (
                  <Text size="sm" fw={500}>
                    {t("form.goals")}
                  </Text>
                )}
                {goals.map((x) => (
                  <GoalCard key={x.id} g={x} />
                ))}
              </Stack>
            </ScrollArea.Autosize>
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {t("common.cancel")}
              </Button>
              <WhyDisabled reason={personas.length + goals.length > 0 ? null : t("production.seedsNone")} testId="seeds-disabled-reason">
                <Button onClick={() => onUse(p.seeds)} disabled={personas.length + goals.length === 0} data-testid="seeds-to-campaign">
                  {t("production.toCampaign")}
                </Button>
              </WhyDisabled>
            </Group>
          </>
        )}
      </Stack>
    </Modal>
  );
}
