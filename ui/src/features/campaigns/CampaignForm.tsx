import {
  Alert,
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
import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type Campaign, type CreateCampaign, type SeedSet } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useLoad } from "../../components/useLoad";
import { duration as localDuration, num as localNumber, when as localDateTime } from "../../components/format";
import { LIMITS, numberOf, outOfRange, type Range } from "./limits";
import { DEFAULT_PLAN, entryRuns, MAX_PLANNED_RUNS, PlanEditor, planEntry, planProblem, type PlanDraft } from "./PlanEditor";
import { SeedSetEditor } from "./SeedSetEditor";
import { goalDraft, personaDraft, seedSetValue, validateSeeds, type GoalDraft, type PersonaDraft } from "./seeds";

const DEFAULT_BUDGET = { max_sessions: 8, max_turns: 12, min_interval_minutes: 30 };

type NumberField = number | string;

export function CampaignForm({
  onClose,
  onCreated,
  seeds,
  targetId: initialTarget = null,
  seedsNote,
}: {
  onClose: () => void;
  onCreated: (c: Campaign) => void;
  /** Personas and goals to start the seed set with (proposed from production). */
  seeds?: SeedSet;
  /** The target to start with. */
  targetId?: string | null;
  /** Says where the starting seeds come from. */
  seedsNote?: string;
}) {
  const { t } = useTranslation();
  const targets = useLoad(() => api.listTargets(), []);
  const [toolEnv, setToolEnv] = useState<string | null>(null);
  const scenarios = useLoad(() => api.listScenarios(), []);
  const campaigns = useLoad(() => api.listCampaigns(), []);

  const [name, setName] = useState("");
  const [targetId, setTargetId] = useState<string | null>(initialTarget);
  const [selected, setSelected] = useState<string[]>([]);
  const [plan, setPlan] = useState<Record<string, PlanDraft>>({});
  const [pack, setPack] = useState<string | null>(null);
  const [tag, setTag] = useState<string | null>(null);
  const [hours, setHours] = useState<NumberField>(168);
  const [line, setLine] = useState<"formal" | "accelerated">("accelerated");
  const [scale, setScale] = useState<NumberField>(168);
  const [personas, setPersonas] = useState<PersonaDraft[]>(() => (seeds?.personas ?? []).map(personaDraft));
  const [goals, setGoals] = useState<GoalDraft[]>(() => (seeds?.goals ?? []).map(goalDraft));
  const [maxSessions, setMaxSessions] = useState<NumberField>("");
  const [maxTurns, setMaxTurns] = useState<NumberField>("");
  const [minInterval, setMinInterval] = useState<NumberField>("");
  const [error, setError] = useState<ApiError | null>(null);
  const [submitted, setSubmitted] = useState(false);
  const [busy, setBusy] = useState(false);
  const [start] = useState(() => new Date());
  const [confirmClose, setConfirmClose] = useState(false);

  // Anything typed or chosen is worth a question before it is thrown away.
  const dirty =
    name !== "" ||
    targetId !== null ||
    selected.length > 0 ||
    personas.length > 0 ||
    goals.length > 0 ||
    hours !== 168 ||
    line !== "accelerated" ||
    scale !== 168 ||
    maxSessions !== "" ||
    maxTurns !== "" ||
    minInterval !== "";
  const requestClose = () => (dirty ? setConfirmClose(true) : onClose());
  useEffect(() => {
    if (!dirty) return;
    // A reload or a closed tab asks first (the browser words the question).
    const ask = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener("beforeunload", ask);
    return () => window.removeEventListener("beforeunload", ask);
  }, [dirty]);

  const target = targetId ?? targets.data?.[0]?.id ?? null;
  const all = scenarios.data ?? [];
  // The user's own packs (from a folder) are listed apart from the shipped ones.
  const packs = useMemo(() => {
    const names = (shipped: boolean) => [...new Set(all.filter((s) => s.shipped === shipped).map((s) => s.pack))].sort();
    return [
      { group: t("form.shippedPacks"), items: names(true) },
      { group: t("form.yourPacks"), items: names(false) },
    ].filter((g) => g.items.length > 0);
  }, [all, t]);
  const tags = useMemo(() => [...new Set(all.flatMap((s) => s.tags))].sort(), [all]);
  const shown = all.filter((s) => (!pack || s.pack === pack) && (!tag || s.tags.includes(tag)));
  const seedErrors = validateSeeds(personas, goals);

  /** The range problem of a number field, in words; `required` when it may not be empty. */
  const rangeError = (v: NumberField, r: Range, required: boolean): string | undefined => {
    const n = typeof v === "number" ? v : numberOf(v);
    if (n === null) return required ? t("form.errRequired") : undefined;
    const p = outOfRange(n, r);
    return p ? t(`form.${p.key}`, { min: localNumber(p.min), max: localNumber(p.max) }) : undefined;
  };
  const fieldErrors = {
    name: submitted && !name.trim() ? t("form.errRequired") : undefined,
    target: submitted && !target ? t("form.errRequired") : undefined,
    hours: rangeError(hours, LIMITS.durationHours, submitted),
    scale: line === "accelerated" ? rangeError(scale, LIMITS.timeScale, submitted) : undefined,
    maxSessions: rangeError(maxSessions, LIMITS.maxSessions, false),
    maxTurns: rangeError(maxTurns, LIMITS.maxTurns, false),
    minInterval: rangeError(minInterval, LIMITS.minIntervalMinutes, false),
  };
  const hoursN = typeof hours === "number" && !fieldErrors.hours ? hours : null;
  const scaleN = line === "formal" ? 1 : typeof scale === "number" && !fieldErrors.scale ? scale : null;
  const planProblems = selected.filter((id) => planProblem(plan[id] ?? DEFAULT_PLAN) !== null);
  const totalRuns =
    hoursN !== null && planProblems.length === 0
      ? selected.reduce((sum, id) => sum + (entryRuns(plan[id] ?? DEFAULT_PLAN, hoursN, start) ?? 0), 0)
      : null;
  const realMs = hoursN !== null && scaleN !== null ? (hoursN * 3_600_000) / scaleN : null;
  const hasSeeds = personas.length > 0 && goals.length > 0;
  const empty = selected.length === 0 && !hasSeeds;
  const tooManyRuns = totalRuns !== null && totalRuns > MAX_PLANNED_RUNS;
  const invalid =
    Object.values(fieldErrors).some(Boolean) ||
    !name.trim() ||
    !target ||
    Object.keys(seedErrors).length > 0 ||
    planProblems.length > 0 ||
    empty ||
    tooManyRuns;

  const optional = (v: NumberField): number | undefined => (typeof v === "number" ? v : undefined);

  const submit = async () => {
    setSubmitted(true);
    if (invalid || hoursN === null || scaleN === null || !target) return;
    const budget = {
      max_sessions: optional(maxSessions),
      max_turns: optional(maxTurns),
      min_interval_minutes: optional(minInterval),
    };
    const req: CreateCampaign = {
      name: name.trim(),
      target_id: target,
      plan: { entries: selected.map((id) => planEntry(id, plan[id] ?? DEFAULT_PLAN)) },
      duration_hours: hoursN,
      time_scale: scaleN,
      seed_set: seedSetValue(personas, goals),
      budget: Object.values(budget).some((v) => v !== undefined) ? budget : undefined,
      tool_env: toolEnv ?? undefined,
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
    <Modal opened onClose={requestClose} title={t("form.title")} size="xl" data-testid="campaign-form">
      <Modal opened={confirmClose} onClose={() => setConfirmClose(false)} title={t("form.discardTitle")} data-testid="campaign-discard">
        <Stack>
          <Text size="sm">{t("form.discardBody")}</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmClose(false)} data-testid="campaign-keep-editing">
              {t("form.keepEditing")}
            </Button>
            <Button color="red" onClick={onClose} data-testid="campaign-discard-confirm">
              {t("form.discard")}
            </Button>
          </Group>
        </Stack>
      </Modal>
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
            <Select size="xs" placeholder={t("form.allPacks")} aria-label={t("form.filterPack")} data={packs} value={pack} onChange={setPack} clearable data-testid="filter-pack" />
            <Select size="xs" placeholder={t("form.allTags")} aria-label={t("form.filterTag")} data={tags} value={tag} onChange={setTag} clearable searchable data-testid="filter-tag" />
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
                {[false, true].map((shipped) => {
                  const group = shown.filter((s) => s.shipped === shipped);
                  if (group.length === 0) return null;
                  return (
                    <Stack gap={4} key={String(shipped)} data-testid={shipped ? "shipped-scenarios" : "own-scenarios"}>
                      {shown.some((s) => s.shipped !== shipped) && (
                        <Text size="xs" fw={600} c="dimmed">
                          {shipped ? t("form.shippedPacks") : t("form.yourPacks")}
                        </Text>
                      )}
                      {group.map((s) => (
                        <Checkbox
                          key={s.id}
                          value={s.id}
                          label={`${s.title} · ${s.pack}${s.tags.length ? ` · ${s.tags.join(", ")}` : ""}`}
                          data-testid="scenario-option"
                        />
                      ))}
                    </Stack>
                  );
                })}
              </Stack>
            </Checkbox.Group>
          </ScrollArea.Autosize>
          <ErrorAlert error={scenarios.error} />
          {selected.length > 0 && (
            <Stack gap={4} mt="sm">
              <Text size="sm" fw={500}>
                {t("plan.title")}
              </Text>
              <Text size="xs" c="dimmed">
                {t("plan.help")}
              </Text>
              <ScrollArea.Autosize mah={260}>
                <PlanEditor
                  selected={selected}
                  scenarios={all}
                  plan={plan}
                  hours={hoursN}
                  start={start}
                  showErrors={submitted}
                  onChange={(id, d) => setPlan({ ...plan, [id]: d })}
                />
              </ScrollArea.Autosize>
            </Stack>
          )}
        </Fieldset>
        <Group grow align="flex-start">
          <NumberInput
            label={t("form.duration")}
            description={t("form.rangeHint", { min: 0, max: localNumber(LIMITS.durationHours.max) })}
            value={hours}
            clampBehavior="none"
            onChange={setHours}
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
              description={t("form.timeScaleRange", { max: localNumber(LIMITS.timeScale.max) })}
              value={scale}
              clampBehavior="none"
              onChange={setScale}
              error={fieldErrors.scale}
              data-testid="campaign-scale"
            />
          )}
        </Group>
        <Alert color="indigo" variant="light" data-testid="plan-summary">
          <Text size="sm">
            {totalRuns === null ? t("plan.summaryUnknown") : t("plan.summaryRuns", { count: totalRuns, runs: localNumber(totalRuns) })}{" "}
            {realMs !== null && hoursN !== null
              ? t("plan.summaryDuration", {
                  hours: localNumber(hoursN),
                  real: localDuration(realMs),
                  end: localDateTime(new Date(start.getTime() + realMs).toISOString()),
                })
              : ""}
          </Text>
          {tooManyRuns && (
            <Text size="sm" c="red">
              {t("plan.errTooMany", { max: localNumber(MAX_PLANNED_RUNS) })}
            </Text>
          )}
        </Alert>
        <Fieldset legend={t("form.seeds")}>
          <Text size="xs" c="dimmed" mb="xs">
            {t("form.seedsHelp")}
          </Text>
          {seedsNote && (
            <Text size="xs" c="teal" mb="xs" data-testid="seeds-note">
              {seedsNote}
            </Text>
          )}
          <SeedSetEditor
            personas={personas}
            goals={goals}
            errors={submitted ? seedErrors : Object.fromEntries(Object.entries(seedErrors).filter(([, e]) => !e.key.endsWith("errRequired")))}
            onPersonas={setPersonas}
            onGoals={setGoals}
            previous={campaigns.data ?? []}
          />
        </Fieldset>
        <Fieldset legend={t("form.budget")}>
          <Group grow align="flex-start">
            <NumberInput
              label={t("form.maxSessions")}
              placeholder={t("form.defaultValue", { value: DEFAULT_BUDGET.max_sessions })}
              description={t("form.budgetHint", { value: DEFAULT_BUDGET.max_sessions, min: LIMITS.maxSessions.min, max: localNumber(LIMITS.maxSessions.max) })}
              value={maxSessions}
              clampBehavior="none"
              allowDecimal={false}
              onChange={setMaxSessions}
              error={fieldErrors.maxSessions}
              data-testid="budget-max-sessions"
            />
            <NumberInput
              label={t("form.maxTurns")}
              placeholder={t("form.defaultValue", { value: DEFAULT_BUDGET.max_turns })}
              description={t("form.budgetHint", { value: DEFAULT_BUDGET.max_turns, min: LIMITS.maxTurns.min, max: LIMITS.maxTurns.max })}
              value={maxTurns}
              clampBehavior="none"
              allowDecimal={false}
              onChange={setMaxTurns}
              error={fieldErrors.maxTurns}
              data-testid="budget-max-turns"
            />
            <NumberInput
              label={t("form.minInterval")}
              placeholder={t("form.defaultValue", { value: DEFAULT_BUDGET.min_interval_minutes })}
              description={t("form.budgetHint", {
                value: DEFAULT_BUDGET.min_interval_minutes,
                min: LIMITS.minIntervalMinutes.min,
                max: localNumber(LIMITS.minIntervalMinutes.max),
              })}
              value={minInterval}
              clampBehavior="none"
              allowDecimal={false}
              onChange={setMinInterval}
              error={fieldErrors.minInterval}
              data-testid="budget-min-interval"
            />
          </Group>
          <Select
            mt="sm"
            label={t("form.toolEnv")}
            description={t("form.toolEnvHint")}
            placeholder={t("form.toolEnvNone")}
            data={all.filter((s) => s.plays_tools).map((s) => ({ value: s.id, label: `${s.title} (${s.id})` }))}
            value={toolEnv}
            onChange={setToolEnv}
            clearable
            searchable
            data-testid="tool-env"
          />
        </Fieldset>
        {submitted && empty && (
          <Alert color="red" data-testid="campaign-empty">
            {t("form.errEmpty")}
          </Alert>
        )}
        {submitted && invalid && !empty && (
          <Text size="sm" c="red" data-testid="campaign-invalid">
            {t("form.errFix")}
          </Text>
        )}
        <ErrorAlert error={error} onClose={() => setError(null)} />
        <Divider />
        <Group justify="flex-end">
          <Button variant="default" onClick={requestClose}>
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
