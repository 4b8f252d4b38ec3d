import {
  ActionIcon,
  Alert,
  Button,
  Card,
  Code,
  FileButton,
  Group,
  Menu,
  Modal,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  TagsInput,
  Text,
  TextInput,
  Textarea,
} from "@mantine/core";
import { useState, type ComponentProps } from "react";
import { useTranslation } from "react-i18next";
import type { Campaign } from "../../api";
import { downloadText } from "../../download";
import {
  goalDraft,
  jsonProblem,
  keptAsJson,
  newGoal,
  newPersona,
  parseSeedFile,
  personaDraft,
  SeedImportError,
  seedFileText,
  type GoalDraft,
  type PersonaDraft,
  type SeedErrors,
  type SeedFormat,
  type SeedImport,
} from "./seeds";

export type { GoalDraft, PersonaDraft } from "./seeds";

/** Fields the editor does not know, shown as they will be sent. */
function ExtraFields({ extra }: { extra: Record<string, unknown> }) {
  const { t } = useTranslation();
  const entries = Object.entries(extra);
  if (entries.length === 0) return null;
  return (
    <Stack gap={2} data-testid="seed-extra">
      <Text size="xs" c="dimmed">
        {t("seeds.extra")}
      </Text>
      {entries.map(([k, v]) => (
        <Text key={k} size="xs" style={{ overflowWrap: "anywhere" }}>
          <Code>{k}</Code> {JSON.stringify(v)}
        </Text>
      ))}
    </Stack>
  );
}


/** Personas and goals with every field the virtual user reads. */
export function SeedSetEditor(props: {
  personas: PersonaDraft[];
  goals: GoalDraft[];
  errors: SeedErrors;
  onPersonas: (p: PersonaDraft[]) => void;
  onGoals: (g: GoalDraft[]) => void;
  /** Earlier campaigns whose seed set can be taken over. */
  previous?: Campaign[];
}) {
  const { t } = useTranslation();
  const { personas, goals, errors } = props;
  const [importProblem, setImportProblem] = useState<string | null>(null);
  const [imported, setImported] = useState<string | null>(null);
  const err = (k: string) => {
    const e = errors[k];
    return e ? t(e.key, e.values ?? {}) : undefined;
  };
  const setP = (i: number, patch: Partial<PersonaDraft>) =>
    props.onPersonas(personas.map((p, j) => (i === j ? { ...p, ...patch } : p)));
  const setG = (i: number, patch: Partial<GoalDraft>) => props.onGoals(goals.map((g, j) => (i === j ? { ...g, ...patch } : g)));

  const [jsonOpen, setJsonOpen] = useState(false);
  const [jsonText, setJsonText] = useState("");

  /** Says what a seed file's error is, in the reader's language. */
  const problem = (e: unknown, file: string) => {
    if (!(e instanceof SeedImportError)) return t("seeds.importSyntax", { file, detail: String(e) });
    if (e.at) return t("seeds.importJson", { file, line: e.at.line, column: e.at.column, problem: jsonProblemText(e.at.code) });
    return t(`seeds.${e.key}`, { file, detail: e.detail });
  };
  const jsonProblemText = (code: string) => t(`seeds.jsonProblem.${code}`, { defaultValue: t("seeds.jsonProblem.other", { code }) });

  /** Takes a parsed seed set and says what was read, and what was kept as JSON. */
  const take = (set: SeedImport, file: string) => {
    props.onPersonas(set.personas);
    props.onGoals(set.goals);
    const kept = keptAsJson(set.personas, set.goals);
    const counts = { file, personas: set.personas.length, goals: set.goals.length };
    setImported(kept.length > 0 ? t("seeds.importedKept", { ...counts, count: kept.length, fields: kept.join(", ") }) : t("seeds.imported", counts));
  };

  const load = async (file: File | null) => {
    if (!file) return;
    setImportProblem(null);
    setImported(null);
    try {
      take(parseSeedFile(await file.text(), file.name), file.name);
    } catch (e) {
      setImportProblem(problem(e, file.name));
    }
  };

  const JSON_NAME = "seed-set.json";
  const jsonAt = jsonOpen ? jsonProblem(jsonText) : null;
  let jsonShape: string | null = null;
  if (jsonOpen && !jsonAt) {
    try {
      parseSeedFile(jsonText, JSON_NAME);
    } catch (e) {
      jsonShape = problem(e, JSON_NAME);
    }
  }
  const applyJson = () => {
    setImportProblem(null);
    take(parseSeedFile(jsonText, JSON_NAME), JSON_NAME);
    setJsonOpen(false);
  };

  const exportAs = (format: SeedFormat) =>
    downloadText(`seed-set.${format === "json" ? "json" : "yaml"}`, seedFileText(personas, goals, format), format === "json" ? "application/json" : "application/yaml");

  const fromPrevious = (id: string | null) => {
    const c = props.previous?.find((x) => x.id === id);
    if (!c) return;
    props.onPersonas((c.seed_set.personas ?? []).map(personaDraft));
    props.onGoals((c.seed_set.goals ?? []).map(goalDraft));
    setImportProblem(null);
    setImported(t("seeds.fromPreviousDone", { name: c.name }));
  };
  const previous = (props.previous ?? []).filter((c) => (c.seed_set.personas?.length ?? 0) + (c.seed_set.goals?.length ?? 0) > 0);
  const languages = ["zh", "en"];

  return (
    <Stack gap="xs" data-testid="seed-editor">
      <Group gap="xs" wrap="wrap">
        <FileButton onChange={(f) => void load(f)} accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml" inputProps={{ "data-testid": "seed-import-input" } as ComponentProps<"input">}>
          {(p) => (
            <Button size="xs" variant="light" {...p} data-testid="seed-import">
              {t("seeds.import")}
            </Button>
          )}
        </FileButton>
        <Button
          size="xs"
          variant="default"
          onClick={() => {
            setJsonText(personas.length + goals.length > 0 ? seedFileText(personas, goals, "json") : `{\n  "personas": [],\n  "goals": []\n}\n`);
            setJsonOpen(true);
          }}
          data-testid="seed-edit-json"
        >
          {t("seeds.editJson")}
        </Button>
        <Menu>
          <Menu.Target>
            <Button size="xs" variant="default" disabled={personas.length + goals.length === 0} data-testid="seed-export">
              {t("seeds.export")}
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            <Menu.Item onClick={() => exportAs("json")} data-testid="seed-export-json">
              JSON
            </Menu.Item>
            <Menu.Item onClick={() => exportAs("yaml")} data-testid="seed-export-yaml">
              YAML
            </Menu.Item>
          </Menu.Dropdown>
        </Menu>
        {previous.length > 0 && (
          <Select
            size="xs"
            w={280}
            placeholder={t("seeds.fromPrevious")}
            aria-label={t("seeds.fromPrevious")}
            data={previous.map((c) => ({
              value: c.id,
              label: t("seeds.previousOption", { name: c.name, personas: c.seed_set.personas?.length ?? 0, goals: c.seed_set.goals?.length ?? 0 }),
            }))}
            value={null}
            onChange={fromPrevious}
            data-testid="seed-from-previous"
          />
        )}
      </Group>
      <Modal opened={jsonOpen} onClose={() => setJsonOpen(false)} title={t("seeds.jsonTitle")} size="xl" data-testid="seed-json-editor">
        <Stack gap="xs">
          <Text size="xs" c="dimmed">
            {t("seeds.jsonHelp")}
          </Text>
          <Textarea
            aria-label={t("seeds.jsonTitle")}
            value={jsonText}
            onChange={(e) => setJsonText(e.currentTarget.value)}
            autosize
            minRows={12}
            maxRows={24}
            spellCheck={false}
            styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)", fontSize: 12 } }}
            error={jsonAt ? t("seeds.jsonAt", { line: jsonAt.line, column: jsonAt.column, problem: jsonProblemText(jsonAt.code) }) : (jsonShape ?? undefined)}
            data-testid="seed-json-text"
          />
          <Group justify="flex-end" gap="xs">
            <Button variant="default" onClick={() => setJsonOpen(false)}>
              {t("common.cancel")}
            </Button>
            <Button onClick={applyJson} disabled={jsonAt !== null || jsonShape !== null} data-testid="seed-json-apply">
              {t("seeds.jsonApply")}
            </Button>
          </Group>
        </Stack>
      </Modal>
      {importProblem && (
        <Alert color="red" withCloseButton onClose={() => setImportProblem(null)} data-testid="seed-import-error">
          {importProblem}
        </Alert>
      )}
      {imported && (
        <Text size="xs" c="teal" data-testid="seed-imported">
          {imported}
        </Text>
      )}

      <Text size="sm" fw={500}>
        {t("form.personas")}
      </Text>
      {personas.map((p, i) => (
        <Card key={i} withBorder padding="sm" data-testid="persona-card">
          <Stack gap="xs">
            <Group align="flex-start" gap="xs" wrap="nowrap">
              <TextInput w={150} label={t("form.personaId")} value={p.id} error={err(`p${i}.id`)} onChange={(e) => setP(i, { id: e.currentTarget.value })} data-testid="persona-id" />
              <TextInput flex={1} label={t("form.personaName")} value={p.name} error={err(`p${i}.name`)} onChange={(e) => setP(i, { name: e.currentTarget.value })} data-testid="persona-name" />
              <Select
                w={130}
                label={t("seeds.language")}
                placeholder={t("seeds.languageAuto")}
                data={[...languages, ...(p.language && !languages.includes(p.language) ? [p.language] : [])].map((l) => ({ value: l, label: l === "zh" || l === "en" ? t(`seeds.lang_${l}`) : l }))}
                value={p.language || null}
                onChange={(v) => setP(i, { language: v ?? "" })}
                clearable
                error={err(`p${i}.language`)}
                data-testid="persona-language"
              />
              <ActionIcon mt={26} variant="subtle" color="red" aria-label={t("form.remove")} onClick={() => props.onPersonas(personas.filter((_, j) => j !== i))}>
                ✕
              </ActionIcon>
            </Group>
            <Textarea label={t("seeds.description")} autosize minRows={1} maxRows={4} value={p.description} onChange={(e) => setP(i, { description: e.currentTarget.value })} data-testid="persona-description" />
            <Group align="flex-start" gap="xs" wrap="nowrap">
              <TagsInput flex={1} label={t("seeds.traits")} description={t("seeds.traitsHelp")} value={p.traits} onChange={(v) => setP(i, { traits: v })} data-testid="persona-traits" />
              <TextInput w={180} label={t("form.personaStyle")} description={t("seeds.styleHelp")} value={p.style} onChange={(e) => setP(i, { style: e.currentTarget.value })} data-testid="persona-style" />
            </Group>
            <SimpleGrid cols={3} spacing="xs">
              <NumberInput
                label={t("seeds.patience")}
                description={t("seeds.patienceHelp")}
                value={p.patience}
                clampBehavior="none"
                error={err(`p${i}.patience`)}
                onChange={(v) => setP(i, { patience: v })}
                data-testid="persona-patience"
              />
              <NumberInput
                label={t("seeds.technicalLevel")}
                description={t("seeds.technicalLevelHelp")}
                value={p.technical_level}
                clampBehavior="none"
                error={err(`p${i}.technical_level`)}
                onChange={(v) => setP(i, { technical_level: v })}
                data-testid="persona-technical"
              />
              <NumberInput
                label={t("seeds.changeMind")}
                description={t("seeds.changeMindHelp")}
                value={p.change_mind}
                step={0.1}
                decimalScale={2}
                clampBehavior="none"
                error={err(`p${i}.change_mind`)}
                onChange={(v) => setP(i, { change_mind: v })}
                data-testid="persona-change-mind"
              />
            </SimpleGrid>
            <ExtraFields extra={p.extra} />
          </Stack>
        </Card>
      ))}
      <Button size="xs" variant="light" w="fit-content" onClick={() => props.onPersonas([...personas, newPersona(personas.length + 1)])} data-testid="add-persona">
        {t("form.addPersona")}
      </Button>

      <Text size="sm" fw={500} mt="xs">
        {t("form.goals")}
      </Text>
      {goals.map((g, i) => (
        <Card key={i} withBorder padding="sm" data-testid="goal-card">
          <Stack gap="xs">
            <Group align="flex-start" gap="xs" wrap="nowrap">
              <TextInput w={150} label={t("form.goalId")} value={g.id} error={err(`g${i}.id`)} onChange={(e) => setG(i, { id: e.currentTarget.value })} data-testid="goal-id" />
              <TextInput flex={1} label={t("form.goalTitle")} value={g.title} error={err(`g${i}.title`)} onChange={(e) => setG(i, { title: e.currentTarget.value })} data-testid="goal-title" />
              <ActionIcon mt={26} variant="subtle" color="red" aria-label={t("form.remove")} onClick={() => props.onGoals(goals.filter((_, j) => j !== i))}>
                ✕
              </ActionIcon>
            </Group>
            <Textarea label={t("seeds.description")} autosize minRows={1} maxRows={4} value={g.description} onChange={(e) => setG(i, { description: e.currentTarget.value })} data-testid="goal-description" />
            <Textarea
              label={t("form.goalCriteria")}
              description={t("seeds.criteriaHelp")}
              autosize
              minRows={1}
              maxRows={5}
              value={g.criteria.join("\n")}
              onChange={(e) => setG(i, { criteria: e.currentTarget.value.split("\n") })}
              data-testid="goal-criteria"
            />
            <Stack gap={4}>
              <Text size="sm" fw={500}>
                {t("seeds.slots")}
              </Text>
              <Text size="xs" c="dimmed">
                {t("seeds.slotsHelp")}
              </Text>
              {g.slots.map((s, j) => (
                <Group key={j} gap="xs" align="flex-start" wrap="nowrap">
                  <TextInput
                    w={180}
                    placeholder={t("seeds.slotKey")}
                    aria-label={t("seeds.slotKey")}
                    value={s.key}
                    error={err(`g${i}.slot${j}`)}
                    onChange={(e) => setG(i, { slots: g.slots.map((x, k) => (k === j ? { ...x, key: e.currentTarget.value } : x)) })}
                    data-testid="slot-key"
                  />
                  <TextInput
                    flex={1}
                    placeholder={t("seeds.slotValue")}
                    aria-label={t("seeds.slotValue")}
                    description={s.json ? t("seeds.slotJson") : undefined}
                    styles={s.json ? { input: { fontFamily: "var(--mantine-font-family-monospace)" } } : undefined}
                    value={s.value}
                    onChange={(e) => setG(i, { slots: g.slots.map((x, k) => (k === j ? { ...x, value: e.currentTarget.value } : x)) })}
                    data-testid="slot-value"
                  />
                  <ActionIcon mt={6} variant="subtle" color="red" aria-label={t("form.remove")} onClick={() => setG(i, { slots: g.slots.filter((_, k) => k !== j) })}>
                    ✕
                  </ActionIcon>
                </Group>
              ))}
              <Button size="compact-xs" variant="subtle" w="fit-content" onClick={() => setG(i, { slots: [...g.slots, { key: "", value: "" }] })} data-testid="add-slot">
                {t("seeds.addSlot")}
              </Button>
            </Stack>
            <ExtraFields extra={g.extra} />
          </Stack>
        </Card>
      ))}
      <Button size="xs" variant="light" w="fit-content" onClick={() => props.onGoals([...goals, newGoal(goals.length + 1)])} data-testid="add-goal">
        {t("form.addGoal")}
      </Button>
    </Stack>
  );
}
