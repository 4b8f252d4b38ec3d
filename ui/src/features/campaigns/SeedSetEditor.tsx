import { ActionIcon, Button, Group, NumberInput, Stack, Text, TextInput, Textarea } from "@mantine/core";
import { useTranslation } from "react-i18next";

export type PersonaDraft = { id: string; name: string; style: string; patience: number | ""; language: string };
export type GoalDraft = { id: string; title: string; criteria: string };

const ID_RE = /^[A-Za-z0-9._-]{1,64}$/;

export type SeedErrors = Record<string, string>;

/** Client-side checks mirroring the engine's, so mistakes show at the field. */
export function validateSeeds(personas: PersonaDraft[], goals: GoalDraft[]): SeedErrors {
  const errors: SeedErrors = {};
  const seen = new Set<string>();
  personas.forEach((p, i) => {
    if (!ID_RE.test(p.id)) errors[`p${i}.id`] = "errId";
    else if (seen.has(`p:${p.id}`)) errors[`p${i}.id`] = "errDuplicate";
    seen.add(`p:${p.id}`);
    if (!p.name.trim()) errors[`p${i}.name`] = "errRequired";
    if (p.patience !== "" && (p.patience < 1 || p.patience > 5)) errors[`p${i}.patience`] = "errPatience";
  });
  goals.forEach((g, i) => {
    if (!ID_RE.test(g.id)) errors[`g${i}.id`] = "errId";
    else if (seen.has(`g:${g.id}`)) errors[`g${i}.id`] = "errDuplicate";
    seen.add(`g:${g.id}`);
    if (!g.title.trim()) errors[`g${i}.title`] = "errRequired";
  });
  return errors;
}

export function SeedSetEditor(props: {
  personas: PersonaDraft[];
  goals: GoalDraft[];
  errors: SeedErrors;
  onPersonas: (p: PersonaDraft[]) => void;
  onGoals: (g: GoalDraft[]) => void;
}) {
  const { t } = useTranslation();
  const { personas, goals, errors } = props;
  const err = (k: string) => (errors[k] ? t(`form.${errors[k]}`) : undefined);
  const setP = (i: number, patch: Partial<PersonaDraft>) =>
    props.onPersonas(personas.map((p, j) => (i === j ? { ...p, ...patch } : p)));
  const setG = (i: number, patch: Partial<GoalDraft>) =>
    props.onGoals(goals.map((g, j) => (i === j ? { ...g, ...patch } : g)));

  return (
    <Stack gap="xs" data-testid="seed-editor">
      <Text size="sm" fw={500}>
        {t("form.personas")}
      </Text>
      {personas.map((p, i) => (
        <Group key={i} align="flex-start" gap="xs" wrap="nowrap">
          <TextInput w={110} label={t("form.personaId")} value={p.id} error={err(`p${i}.id`)} onChange={(e) => setP(i, { id: e.currentTarget.value })} />
          <TextInput flex={1} label={t("form.personaName")} value={p.name} error={err(`p${i}.name`)} onChange={(e) => setP(i, { name: e.currentTarget.value })} />
          <TextInput w={110} label={t("form.personaStyle")} value={p.style} onChange={(e) => setP(i, { style: e.currentTarget.value })} />
          <NumberInput
            w={110}
            label={t("form.personaPatience")}
            value={p.patience}
            min={1}
            max={5}
            error={err(`p${i}.patience`)}
            onChange={(v) => setP(i, { patience: typeof v === "number" ? v : "" })}
          />
          <TextInput w={80} label={t("form.personaLanguage")} value={p.language} onChange={(e) => setP(i, { language: e.currentTarget.value })} />
          <ActionIcon mt={26} variant="subtle" color="red" aria-label={t("form.remove")} onClick={() => props.onPersonas(personas.filter((_, j) => j !== i))}>
            ✕
          </ActionIcon>
        </Group>
      ))}
      <Button
        size="xs"
        variant="light"
        w="fit-content"
        onClick={() =>
          props.onPersonas([...personas, { id: `persona-${personas.length + 1}`, name: "", style: "", patience: 3, language: "" }])
        }
        data-testid="add-persona"
      >
        {t("form.addPersona")}
      </Button>
      <Text size="sm" fw={500} mt="xs">
        {t("form.goals")}
      </Text>
      {goals.map((g, i) => (
        <Group key={i} align="flex-start" gap="xs" wrap="nowrap">
          <TextInput w={110} label={t("form.goalId")} value={g.id} error={err(`g${i}.id`)} onChange={(e) => setG(i, { id: e.currentTarget.value })} />
          <TextInput flex={1} label={t("form.goalTitle")} value={g.title} error={err(`g${i}.title`)} onChange={(e) => setG(i, { title: e.currentTarget.value })} />
          <Textarea flex={1} autosize minRows={1} label={t("form.goalCriteria")} value={g.criteria} onChange={(e) => setG(i, { criteria: e.currentTarget.value })} />
          <ActionIcon mt={26} variant="subtle" color="red" aria-label={t("form.remove")} onClick={() => props.onGoals(goals.filter((_, j) => j !== i))}>
            ✕
          </ActionIcon>
        </Group>
      ))}
      <Button
        size="xs"
        variant="light"
        w="fit-content"
        onClick={() => props.onGoals([...goals, { id: `goal-${goals.length + 1}`, title: "", criteria: "" }])}
        data-testid="add-goal"
      >
        {t("form.addGoal")}
      </Button>
    </Stack>
  );
}
