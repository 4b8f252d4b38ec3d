import { Alert, Button, Card, Group, NumberInput, PasswordInput, SegmentedControl, Stack, Switch, Table, Text, TextInput, Title } from "@mantine/core";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type JudgePolicy, type RoleModel, type RoleView, type Settings } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useLoad } from "../../components/useLoad";
import { setLanguage } from "../../i18n";
import { TeamServerCard } from "./TeamServerCard";
import { outOfRange, type Range } from "../campaigns/limits";

const PATROL_RANGE: Range = { min: 1, max: 1440, integer: true };
const PORT_RANGE: Range = { min: 1024, max: 65535, integer: true };
const TOKENS_RANGE: Range = { min: 1, max: 100000, integer: true };
const CONCURRENCY_RANGE: Range = { min: 1, max: 64, integer: true };
/** The analyst's input budget: the report digest it reads, in tokens. */
const INPUT_TOKENS_RANGE: Range = { min: 500, max: 100000, integer: true };
const DEFAULT_INPUT_TOKENS = 4000;
const SHARE_RANGE: Range = { min: 0, max: 1, integer: false };
const ITEMS_RANGE: Range = { min: 1, max: 10000, integer: true };
/** The engine's defaults, for settings saved before the judge had any. */
const DEFAULT_JUDGE: Required<JudgePolicy> = { min_kappa: 0.6, min_items: 30, second_pass: false, min_self_agreement: 0.8 };

function judgeOf(s: Settings): Required<JudgePolicy> {
  return { ...DEFAULT_JUDGE, ...s.judge };
}
/** Sessions a role works on at once when left empty. */
const DEFAULT_CONCURRENCY = 4;

function useRangeError() {
  const { t } = useTranslation();
  return (v: number | string | null | undefined, r: Range): string | undefined => {
    if (v === null || v === undefined || v === "") return undefined;
    const p = outOfRange(typeof v === "number" ? v : Number(v), r);
    return p ? t(`form.${p.key}`, { min: p.min, max: p.max }) : undefined;
  };
}

/** Who plays each role now: the model, or the offline engine that stands in. */
function RoleModelsOverview() {
  const { t } = useTranslation();
  const view = useLoad(() => api.roleModelsView(), []);
  const roles: { role: Role; v: RoleView | undefined }[] = ROLES.map((role) => ({ role, v: view.data?.[role] }));
  return (
    <Card withBorder data-testid="role-models-view">
      <Title order={4}>{t("settings.whoPlays")}</Title>
      <Text size="xs" c="dimmed" mb="sm">
        {api.mode !== "desktop" ? t("settings.whoPlaysBrowser") : t("settings.whoPlaysHelp")}
      </Text>
      <ErrorAlert error={view.error} />
      {view.data && (
        <Table>
          <Table.Tbody>
            {roles.map(({ role, v }) => (
              <Table.Tr key={role} data-testid={`role-view-${role}`}>
                <Table.Td w={160}>
                  <Text size="sm" fw={500}>
                    {t(`settings.${role}`)}
                  </Text>
                </Table.Td>
                <Table.Td>
                  {v?.model ? (
                    <Text size="sm" data-testid="role-view-model">
                      {t("settings.playedByModel", { model: v.model, host: v.host ?? "—" })}
                    </Text>
                  ) : (
                    <Text size="sm" c="dimmed" data-testid="role-view-fallback">
                      {t(`settings.fallback_${v?.fallback ?? "none"}`)}
                    </Text>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Card>
  );
}

type Role = "judge" | "analyst" | "virtual_user" | "tool_simulator";
const ROLES: Role[] = ["judge", "analyst", "virtual_user", "tool_simulator"];
/** What the backend uses when a role's max tokens is left empty. */
const DEFAULT_MAX_TOKENS: Record<Role, number> = { judge: 800, analyst: 1500, virtual_user: 300, tool_simulator: 600 };
/** Roles that work on several sessions at once (the tool simulator answers within a run). */
const HAS_CONCURRENCY: Record<Role, boolean> = { judge: true, analyst: false, virtual_user: true, tool_simulator: false };

function newKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function RoleModelFields({ role, value, onChange }: { role: Role; value: RoleModel | null; onChange: (v: RoleModel | null) => void }) {
  const { t } = useTranslation();
  const rangeError = useRangeError();
  const m = value ?? { base_url: "", model: "" };
  const set = (patch: Partial<RoleModel>) => {
    const next = { ...m, ...patch };
    onChange(next.base_url || next.model ? next : null);
  };
  return (
    <Group grow align="flex-end">
      <Text fw={500} maw={120}>
        {t(`settings.${role}`)}
      </Text>
      <TextInput label={t("settings.baseUrl")} placeholder="http://127.0.0.1:8000/v1" value={m.base_url} onChange={(e) => set({ base_url: e.currentTarget.value })} />
      <TextInput label={t("settings.model")} value={m.model} onChange={(e) => set({ model: e.currentTarget.value })} />
      <PasswordInput
        label={t("settings.apiKey")}
        placeholder={m.api_key_ref ? "••••••" : ""}
        value={m.api_key ?? ""}
        onChange={(e) => set({ api_key: e.currentTarget.value || undefined })}
      />
      <NumberInput
        maw={130}
        label={t("settings.maxTokens")}
        placeholder={String(DEFAULT_MAX_TOKENS[role])}
        clampBehavior="none"
        allowDecimal={false}
        value={m.max_tokens ?? ""}
        error={rangeError(m.max_tokens, TOKENS_RANGE)}
        onChange={(v) => set({ max_tokens: typeof v === "number" ? v : undefined })}
      />
      {role === "analyst" && (
        <NumberInput
          maw={130}
          label={t("settings.inputTokens")}
          description={t("settings.inputTokensHint")}
          placeholder={String(DEFAULT_INPUT_TOKENS)}
          clampBehavior="none"
          allowDecimal={false}
          value={m.input_tokens ?? ""}
          error={rangeError(m.input_tokens, INPUT_TOKENS_RANGE)}
          onChange={(v) => set({ input_tokens: typeof v === "number" ? v : undefined })}
          data-testid="input-tokens-analyst"
        />
      )}
      {HAS_CONCURRENCY[role] && (
        <NumberInput
          maw={130}
          label={t("settings.concurrency")}
          placeholder={String(DEFAULT_CONCURRENCY)}
          clampBehavior="none"
          allowDecimal={false}
          value={m.concurrency ?? ""}
          error={rangeError(m.concurrency, CONCURRENCY_RANGE)}
          onChange={(v) => set({ concurrency: typeof v === "number" ? v : undefined })}
          data-testid={`concurrency-${role}`}
        />
      )}
    </Group>
  );
}

export function SettingsPage() {
  const { t, i18n } = useTranslation();
  const rangeError = useRangeError();
  const settings = useLoad(() => api.getSettings(), []);
  const info = useLoad(() => api.info(), []);
  const [draft, setDraft] = useState<Settings | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (settings.data) setDraft(settings.data);
  }, [settings.data]);

  const lang = i18n.language.startsWith("zh") ? "zh" : "en";

  const invalid =
    draft !== null &&
    Boolean(
      rangeError(draft.patrol_interval_minutes, PATROL_RANGE) ||
        rangeError(draft.api.port, PORT_RANGE) ||
        rangeError(judgeOf(draft).min_kappa, SHARE_RANGE) ||
        rangeError(judgeOf(draft).min_items, ITEMS_RANGE) ||
        rangeError(judgeOf(draft).min_self_agreement, SHARE_RANGE) ||
        ROLES.some((r) => rangeError(draft.role_models[r]?.max_tokens, TOKENS_RANGE) || rangeError(draft.role_models[r]?.concurrency, CONCURRENCY_RANGE) || rangeError(draft.role_models[r]?.input_tokens, INPUT_TOKENS_RANGE)),
    );

  const save = async () => {
    if (!draft || invalid) return;
    try {
      const s = await api.updateSettings(draft);
      setDraft(s);
      setSaved(true);
      setError(null);
    } catch (e) {
      setError(asApiError(e));
      setSaved(false);
    }
  };

  return (
    <Stack maw={900}>
      <Title order={2}>{t("settings.title")}</Title>
      <Card withBorder>
        <Text fw={500} mb="xs">
          {t("settings.language")}
        </Text>
        <SegmentedControl
          value={lang}
          onChange={(v) => {
            const l = v === "zh" ? "zh" : "en";
            setLanguage(l);
            if (draft) setDraft({ ...draft, language: l });
          }}
          data={[
            { value: "en", label: "English" },
            { value: "zh", label: "中文" },
          ]}
        />
      </Card>
      {api.mode === "browser" && <Text c="dimmed">{t("settings.browserNote")}</Text>}
      <TeamServerCard />
      {api.mode === "server" && <Text c="dimmed">{t("settings.serverNote")}</Text>}
      <RoleModelsOverview />
      {draft && (
        <>
          <Card withBorder>
            <Title order={4}>{t("settings.roleModels")}</Title>
            <Text size="xs" c="dimmed" mb="sm">
              {t("settings.roleModelsHelp")}
            </Text>
            {info.data?.keyStorage === "encrypted_file" && (
              <Alert color="yellow" mb="sm" data-testid="no-keychain">
                {t("settings.noKeychain")}
              </Alert>
            )}
            {info.data?.keyStorage === "keychain" && (
              <Text size="xs" c="dimmed" mb="sm" data-testid="keychain">
                {t("settings.keychain")}
              </Text>
            )}
            <Stack gap="xs">
              {ROLES.map((role) => (
                <RoleModelFields
                  key={role}
                  role={role}
                  value={draft.role_models[role] ?? null}
                  onChange={(v) => setDraft({ ...draft, role_models: { ...draft.role_models, [role]: v } })}
                />
              ))}
            </Stack>
          </Card>
          <Card withBorder>
            <Group grow align="flex-start">
              <NumberInput
                label={t("settings.patrol")}
                value={draft.patrol_interval_minutes}
                clampBehavior="none"
                allowDecimal={false}
                error={rangeError(draft.patrol_interval_minutes, PATROL_RANGE)}
                onChange={(v) => setDraft({ ...draft, patrol_interval_minutes: typeof v === "number" ? v : Number.NaN })}
              />
            </Group>
          </Card>
          <Card withBorder data-testid="judge-settings">
            <Title order={4}>{t("settings.judgeCalibration")}</Title>
            <Text size="xs" c="dimmed" mb="xs">
              {t("settings.judgeHelp")}
            </Text>
            <Group grow align="flex-start">
              <NumberInput
                label={t("settings.minKappa")}
                value={judgeOf(draft).min_kappa ?? ""}
                clampBehavior="none"
                step={0.05}
                decimalScale={2}
                error={rangeError(judgeOf(draft).min_kappa, SHARE_RANGE)}
                onChange={(v) => setDraft({ ...draft, judge: { ...judgeOf(draft), min_kappa: typeof v === "number" ? v : Number.NaN } })}
              />
              <NumberInput
                label={t("settings.minItems")}
                value={judgeOf(draft).min_items}
                clampBehavior="none"
                allowDecimal={false}
                error={rangeError(judgeOf(draft).min_items, ITEMS_RANGE)}
                onChange={(v) => setDraft({ ...draft, judge: { ...judgeOf(draft), min_items: typeof v === "number" ? v : Number.NaN } })}
              />
              <NumberInput
                label={t("settings.minSelfAgreement")}
                value={judgeOf(draft).min_self_agreement ?? ""}
                clampBehavior="none"
                step={0.05}
                decimalScale={2}
                error={rangeError(judgeOf(draft).min_self_agreement, SHARE_RANGE)}
                onChange={(v) => setDraft({ ...draft, judge: { ...judgeOf(draft), min_self_agreement: typeof v === "number" ? v : Number.NaN } })}
              />
            </Group>
            <Switch
              mt="sm"
              label={t("settings.secondPass")}
              checked={judgeOf(draft).second_pass}
              onChange={(e) => setDraft({ ...draft, judge: { ...judgeOf(draft), second_pass: e.currentTarget.checked } })}
            />
          </Card>
          <Card withBorder>
            <Switch
              data-testid="settings-offline"
              label={t("settings.offline")}
              description={t("settings.offlineHint")}
              checked={draft.offline}
              onChange={(e) => setDraft({ ...draft, offline: e.currentTarget.checked })}
            />
          </Card>
          <Card withBorder>
            <Title order={4} mb="xs">
              {t("settings.api")}
            </Title>
            <Stack gap="xs">
              <Switch
                label={t("settings.apiEnabled")}
                checked={draft.api.enabled}
                onChange={(e) => setDraft({ ...draft, api: { ...draft.api, enabled: e.currentTarget.checked } })}
              />
              <Group align="flex-end">
                <NumberInput
                  w={140}
                  label={t("settings.apiPort")}
                  value={draft.api.port}
                  clampBehavior="none"
                  allowDecimal={false}
                  error={rangeError(draft.api.port, PORT_RANGE)}
                  onChange={(v) => setDraft({ ...draft, api: { ...draft.api, port: typeof v === "number" ? v : Number.NaN } })}
                />
                <PasswordInput
                  flex={1}
                  label={t("settings.apiKey")}
                  value={draft.api.key}
                  onChange={(e) => setDraft({ ...draft, api: { ...draft.api, key: e.currentTarget.value } })}
                />
                <Button variant="light" onClick={() => setDraft({ ...draft, api: { ...draft.api, key: newKey() } })}>
                  {t("settings.regenerate")}
                </Button>
              </Group>
              <Text size="xs" c="dimmed">
                {t("settings.restartNote")}
              </Text>
            </Stack>
          </Card>
          <ErrorAlert error={error} onClose={() => setError(null)} />
          {saved && <Text c="green">{t("settings.saved")}</Text>}
          <Button w="fit-content" onClick={() => void save()} disabled={invalid}>
            {t("common.save")}
          </Button>
        </>
      )}
      {info.data && (
        <Card withBorder>
          <Title order={4}>{t("settings.about")}</Title>
          <Table>
            <Table.Tbody>
              <Table.Tr>
                <Table.Td>{t("settings.version")}</Table.Td>
                <Table.Td data-testid="about-version">{info.data.version}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Td>{t("settings.revision")}</Table.Td>
                <Table.Td ff="monospace" data-testid="about-revision">
                  {info.data.revision}
                </Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Td>{t("settings.built")}</Table.Td>
                <Table.Td data-testid="about-built">{info.data.built}</Table.Td>
              </Table.Tr>
              <Table.Tr>
                <Table.Td>{t("settings.mode")}</Table.Td>
                <Table.Td>{t(`settings.mode_${info.data.mode}`)}</Table.Td>
              </Table.Tr>
              {info.data.dataDir && (
                <Table.Tr>
                  <Table.Td>{t("settings.dataDir")}</Table.Td>
                  <Table.Td ff="monospace">{info.data.dataDir}</Table.Td>
                </Table.Tr>
              )}
              {info.data.userPacksDir && (
                <Table.Tr>
                  <Table.Td>{t("settings.userPacksDir")}</Table.Td>
                  <Table.Td ff="monospace">{info.data.userPacksDir}</Table.Td>
                </Table.Tr>
              )}
              {info.data.logDir && (
                <Table.Tr>
                  <Table.Td>{t("settings.logDir")}</Table.Td>
                  <Table.Td ff="monospace">
                    {info.data.logDir}{" "}
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      onClick={() => {
                        const dir = info.data?.logDir;
                        if (dir) api.reveal(dir).catch((e: unknown) => setError(asApiError(e)));
                      }}
                    >
                      {t("settings.show")}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              )}
              {info.data.scenariosLoaded !== undefined && (
                <Table.Tr>
                  <Table.Td>{t("settings.scenariosLoaded")}</Table.Td>
                  <Table.Td>{info.data.scenariosLoaded}</Table.Td>
                </Table.Tr>
              )}
            </Table.Tbody>
          </Table>
          {(info.data.scenarioErrors ?? []).map((e, i) => (
            <Text key={i} size="xs" c="red" ff="monospace">
              {e}
            </Text>
          ))}
        </Card>
      )}
    </Stack>
  );
}
