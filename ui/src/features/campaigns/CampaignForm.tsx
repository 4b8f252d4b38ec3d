import {
  Button,
  Checkbox,
  Divider,
  Fieldset,
  Group,
  Modal,
  NumberInput,
  ScrollArea,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
} from "@mantine/core";
import { useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type Campaign, type CreateCampaign } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { duration } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { SeedSetEditor, validateSeeds, type GoalDraft, type PersonaDraft } from "./SeedSetEditor";

const DEFAULT_BUDGET = { max_sessions: 8, max_turns: 12, min_interval_minutes: 30 };

function optionalNumber(v: number | ""): number | undefined {
  return v === "" ? undefined : v;
}

export function CampaignForm({ onClose, onCreated }: { onClose: () => void; onCreated: (c: Campaign) => void }) {
  const { t } = useTranslation();
  const targets = useLoad(() => api.listTargets(), []);
  const scenarios = useLoad(() => api.listScenarios(), []);

  const [name, setName] = useState("");
  const [targetId, setTargetId] = useState<string | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const [pack, setPack] = useState<string | null>(null);
  const [tag, setTag] = useState<string | null>(null);
  const [hours, setHours] = useState<number | "">(168);
  const [line, setLine] = useState<"formal" | "accelerated">("accelerated");
  const [scale, setScale] = useState<number | "">(168);
  const [personas, setPersonas] = useState<PersonaDraft[]>([]);
  const [goals, setGoals] = useState<GoalDraft[]>([]);
  const [maxSessions, setMaxSessions] = useState<number | "">("");
  const [maxTurns, setMaxTurns] = useState<number | "">("");
  const [minInterval, setMinInterval] = useState<number | "">("");
  const [error, setError] = useState<ApiError | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);

  const target = targetId ?? targets.data?.[0]?.id ?? null;
  const all = scenarios.data ?? [];
  const packs = useMemo(() => [...new Set(all.map((s) => s.pack))].sort(), [all]);
  const tags = useMemo(() => [...new Set(all.flatMap((s) => s.tags))].sort(), [all]);
  const shown = all.filter((s) => (!pack || s.pack === pack) && (!tag || s.tags.includes(tag)));
  const seedErrors = validateSeeds(personas, goals);
  const timeScale = line === "formal" ? 1 : typeof scale === "number" ? scale : 1;
  const fieldErrors = {
    name: submitted && !name.trim() ? t("form.errRequired") : undefined,
    target: submitted && !target ? t("form.errRequired") : undefined,
    hours: submitted && (hours === "" || hours <= 0) ? t("form.errRequired") : undefined,
  };

  const submit = async () => {
    setSubmitted(true);
    if (!name.trim() || !target || hours === "" || hours <= 0 || Object.keys(seedErrors).length > 0) return;
    const budget = {
      max_sessions: optionalNumber(maxSessions),
      max_turns: optionalNumber(maxTurns),
      min_interval_minutes: optionalNumber(minInterval),
    };
    const req: CreateCampaign = {
      name: name.trim(),
      target_id: target,
      scenario_ids: selected,
      duration_hours: hours,
      time_scale: timeScale,
      seed_set: {
        personas: personas.map((p) => ({
          id: p.id,
          name: p.name.trim(),
          style: p.style.trim() || undefined,
          patience: p.patience === "" ? undefined : p.patience,
          language: p.language.trim() || undefined,
        })),
        goals: goals.map((g) => ({
          id: g.id,
          title: g.title.trim(),
          success_criteria: g.criteria
            .split("\n")
            .map((x) => x.trim())
            .filter(Boolean),
        })),
      },
      budget: Object.values(budget).some((v) => v !== undefined) ? budget : undefined,
    };
    setBusy(true);
    try {
      onCreated(await api.createCampaign(req));
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened onClose={onClose} title={t("form.title")} size="xl" data-testid="campaign-form">
      <Stack>
        <TextInput
          label={t("form.name")}
          placeholder={t("form.namePlaceholder")}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={fieldErrors.name}
          required
          data-testid="campaign-name"
        />
        <Select
          label={t("form.target")}
          data={(targets.data ?? []).map((x) => ({ value: x.id, label: x.name }))}
          value={target}
          onChange={setTargetId}
          error={fieldErrors.target}
          allowDeselect={false}
          required
          data-testid="campaign-target"
        />
        <Fieldset legend={t("form.scenarios")}>
          <Text size="xs" c="dimmed" mb="xs">
            {t("form.scenariosHint")}
          </Text>
          <Group gap="xs" mb="xs">
            <Select size="xs" placeholder={t("form.allPacks")} data={packs} value={pack} onChange={setPack} clearable data-testid="filter-pack" />
            <Select size="xs" placeholder={t("form.allTags")} data={tags} value={tag} onChange={setTag} clearable searchable data-testid="filter-tag" />
            <Button size="xs" variant="light" onClick={() => setSelected([...new Set([...selected, ...shown.map((s) => s.id)])])} data-testid="select-shown">
              {t("form.selectAll")}
            </Button>
            <Button size="xs" variant="subtle" onClick={() => setSelected([])}>
              {t("form.clear")}
            </Button>
            <Text size="xs" c="dimmed">
              {selected.length}/{all.length}
            </Text>
          </Group>
          {all.length === 0 && !scenarios.loading && (
            <Text size="sm" c="orange">
              {t("form.noScenarios")}
            </Text>
          )}
          <ScrollArea.Autosize mah={180}>
            <Checkbox.Group value={selected} onChange={setSelected}>
              <Stack gap={4}>
                {shown.map((s) => (
                  <Checkbox
                    key={s.id}
                    value={s.id}
                    label={`${s.title} · ${s.pack}${s.tags.length ? ` · ${s.tags.join(", ")}` : ""}`}
                    data-testid="scenario-option"
                  />
                ))}
              </Stack>
            </Checkbox.Group>
          </ScrollArea.Autosize>
          <ErrorAlert error={scenarios.error} />
        </Fieldset>
        <Group grow align="flex-start">
          <NumberInput
            label={t("form.duration")}
            value={hours}
            min={0.1}
            onChange={(v) => setHours(typeof v === "number" ? v : "")}
            error={fieldErrors.hours}
            data-testid="campaign-hours"
          />
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              {t("form.line")}
            </Text>
            <SegmentedControl
              value={line}
              onChange={(v) => setLine(v === "formal" ? "formal" : "accelerated")}
              data={[
                { value: "formal", label: t("line.formal") },
                { value: "accelerated", label: t("line.accelerated") },
              ]}
              data-testid="campaign-line"
            />
            <Text size="xs" c="dimmed">
              {line === "formal" ? t("form.formalHelp") : t("form.acceleratedHelp")}
            </Text>
          </Stack>
          {line === "accelerated" && (
            <NumberInput
              label={t("form.timeScale")}
              value={scale}
              min={2}
              max={100000}
              onChange={(v) => setScale(typeof v === "number" ? v : "")}
              description={
                typeof hours === "number"
                  ? t("form.timeScaleHelp", { hours, real: duration((hours * 3_600_000) / timeScale) })
                  : undefined
              }
              data-testid="campaign-scale"
            />
          )}
        </Group>
        <Fieldset legend={t("form.seeds")}>
          <Text size="xs" c="dimmed" mb="xs">
            {t("form.seedsHelp")}
          </Text>
          <SeedSetEditor
            personas={personas}
            goals={goals}
            errors={submitted ? seedErrors : {}}
            onPersonas={setPersonas}
            onGoals={setGoals}
          />
        </Fieldset>
        <Fieldset legend={t("form.budget")}>
          <Group grow>
            <NumberInput
              label={t("form.maxSessions")}
              placeholder={t("form.defaultValue", { value: DEFAULT_BUDGET.max_sessions })}
              description={t("form.defaultValue", { value: DEFAULT_BUDGET.max_sessions })}
              value={maxSessions}
              min={0}
              onChange={(v) => setMaxSessions(typeof v === "number" ? v : "")}
            />
            <NumberInput
              label={t("form.maxTurns")}
              placeholder={t("form.defaultValue", { value: DEFAULT_BUDGET.max_turns })}
              description={t("form.defaultValue", { value: DEFAULT_BUDGET.max_turns })}
              value={maxTurns}
              min={1}
              onChange={(v) => setMaxTurns(typeof v === "number" ? v : "")}
            />
            <NumberInput
              label={t("form.minInterval")}
              placeholder={t("form.defaultValue", { value: DEFAULT_BUDGET.min_interval_minutes })}
              description={t("form.defaultValue", { value: DEFAULT_BUDGET.min_interval_minutes })}
              value={minInterval}
              min={0}
              onChange={(v) => setMinInterval(typeof v === "number" ? v : "")}
            />
          </Group>
        </Fieldset>
        <ErrorAlert error={error} onClose={() => setError(null)} />
        <Divider />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t("common.cancel")}
          </Button>
          <Button onClick={() => void submit()} loading={busy} data-testid="campaign-submit">
            {t("form.submit")}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
