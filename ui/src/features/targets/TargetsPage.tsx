import {
  Alert,
  Badge,
  Button,
  Card,
  Group,
  JsonInput,
  Modal,
  NumberInput,
  PasswordInput,
  SegmentedControl,
  Stack,
  Switch,
  Table,
  Text,
  TextInput,
  Title,
} from "@mantine/core";
import { Fragment, useState } from "react";
import type { TFunction } from "i18next";
import { useTranslation } from "react-i18next";
import { useEngineText } from "../../i18n/engine";
import {
  api,
  asApiError,
  type ApiError,
  type ChannelConfig,
  type TargetSettings,
  type Target,
  type TargetProbe,
  type Value,
} from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useMayChange } from "../../components/identity";
import { ms, num, when } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { LIMITS, numberOf, outOfRange } from "../campaigns/limits";
import { CodeSpans } from "../../components/CodeSpans";

type Kind = ChannelConfig["kind"];

/** Where a target answers; the built-in demo agent by its name, not its code. */
function endpoint(t: TFunction, c: ChannelConfig): string {
  switch (c.kind) {
    case "openai":
      return `${c.model} @ ${c.base_url}`;
    case "http":
      return c.url;
    case "builtin":
      return c.agent === "demo" ? t("targets.builtin") : c.agent;
  }
}

/** A probe's outcome in words, with what to do when it failed. */
export function ProbeResult({ probe }: { probe: TargetProbe }) {
  const { t } = useTranslation();
  const tx = useEngineText();
  if (probe.ok) {
    return (
      <Text size="xs" c="teal" data-testid="target-probe" data-ok="true">
        {t("targets.ok", { latency: ms(probe.latency_ms ?? 0) })}
        {probe.reply_excerpt ? ` · “${probe.reply_excerpt}”` : ""}
      </Text>
    );
  }
  const message = probe.text ? tx(probe.text.message) : (probe.message ?? probe.error ?? t("targets.noReason"));
  const suggestion = probe.text ? tx(probe.text.suggestion) : probe.suggestion;
  return (
    <Stack gap={0} data-testid="target-probe" data-ok="false">
      <Text size="xs" c="red" style={{ overflowWrap: "anywhere" }}>
        {t("targets.failed")}: <CodeSpans text={message} />
      </Text>
      {suggestion && (
        <Text size="xs" c="dimmed" style={{ overflowWrap: "anywhere" }}>
          {t("error.suggestion")}: <CodeSpans text={suggestion} />
        </Text>
      )}
    </Stack>
  );
}

/** The form for a new target, or for editing one (`initial`). */
function TargetForm({ initial, onSaved, onCancel }: { initial?: Target; onSaved: (t: Target, probe: TargetProbe | null) => void; onCancel?: () => void }) {
  const { t } = useTranslation();
  const c = initial?.channel;
  const [kind, setKind] = useState<Kind>(c?.kind ?? "openai");
  const [name, setName] = useState(initial?.name ?? "");
  const [baseUrl, setBaseUrl] = useState(c?.kind === "openai" ? c.base_url : "http://127.0.0.1:8000/v1");
  const [model, setModel] = useState(c?.kind === "openai" ? c.model : "");
  const [key, setKey] = useState("");
  const [url, setUrl] = useState(c?.kind === "http" ? c.url : "");
  const [template, setTemplate] = useState(c?.kind === "http" && c.request_template != null ? JSON.stringify(c.request_template, null, 2) : "");
  const [responsePath, setResponsePath] = useState(c?.kind === "http" ? (c.response_path ?? "") : "");
  const [concurrency, setConcurrency] = useState<number | string>(initial?.concurrency ?? 4);
  const [submitted, setSubmitted] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  let templateValue: Value | null = null;
  let templateError: string | undefined;
  if (template.trim()) {
    try {
      templateValue = JSON.parse(template) as Value;
    } catch (e) {
      templateError = t("targets.errTemplate", { detail: e instanceof Error ? e.message : String(e) });
    }
  }
  const concurrencyN = typeof concurrency === "number" ? concurrency : numberOf(concurrency);
  const concurrencyProblem = concurrencyN === null ? null : outOfRange(concurrencyN, LIMITS.concurrency);
  const errors = {
    name: submitted && !name.trim() ? t("form.errRequired") : undefined,
    concurrency: concurrencyProblem ? t(`form.${concurrencyProblem.key}`, { min: concurrencyProblem.min, max: num(concurrencyProblem.max) }) : undefined,
    url: submitted && kind === "http" && !url.trim() ? t("form.errRequired") : undefined,
    baseUrl: submitted && kind === "openai" && !baseUrl.trim() ? t("form.errRequired") : undefined,
    model: submitted && kind === "openai" && !model.trim() ? t("form.errRequired") : undefined,
    template: templateError,
  };

  const submit = async () => {
    setSubmitted(true);
    if (!name.trim() || Object.values(errors).some(Boolean)) return;
    if ((kind === "http" && !url.trim()) || (kind === "openai" && (!baseUrl.trim() || !model.trim()))) return;
    const kept = c?.kind === "openai" ? { api_key_ref: c.api_key_ref ?? null, api_key_env: c.api_key_env ?? null } : {};
    const channel: ChannelConfig =
      kind === "openai"
        ? { kind: "openai", base_url: baseUrl.trim(), model: model.trim(), ...kept, api_key: key || undefined, headers: c?.kind === "openai" ? (c.headers ?? []) : [] }
        : kind === "http"
          ? {
              kind: "http",
              url: url.trim(),
              request_template: templateValue,
              response_path: responsePath.trim() || null,
              headers: c?.kind === "http" ? (c.headers ?? []) : [],
            }
          : { kind: "builtin", agent: "demo" };
    const req: TargetSettings = {
      name: name.trim(),
      channel,
      concurrency: typeof concurrency === "number" ? concurrency : null,
      rate_per_second: initial?.rate_per_second ?? null,
      timeout_ms: initial?.timeout_ms ?? null,
      max_retries: initial?.max_retries ?? null,
      price_in_per_mtok: initial?.price_in_per_mtok ?? null,
      price_out_per_mtok: initial?.price_out_per_mtok ?? null,
    };
    setBusy(true);
    setError(null);
    try {
      const saved = initial ? await api.updateTarget(initial.id, req) : await api.createTarget(req);
      // A new target is tested at once; a failure warns but never refuses.
      let probe: TargetProbe | null = null;
      if (!initial) probe = await api.testTarget(saved.id).catch(() => null);
      setSubmitted(false);
      if (!initial) {
        setName("");
        setKey("");
      }
      onSaved(saved, probe);
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Stack gap="xs">
      <SegmentedControl
        value={kind}
        onChange={(v) => setKind(v === "http" ? "http" : v === "builtin" ? "builtin" : "openai")}
        data={[
          { value: "openai", label: t("targets.openai") },
          { value: "http", label: t("targets.http") },
          { value: "builtin", label: t("targets.builtin") },
        ]}
        data-testid="target-kind"
      />
      <TextInput label={t("targets.name")} value={name} error={errors.name} onChange={(e) => setName(e.currentTarget.value)} data-testid="target-name" />
      {kind === "openai" && (
        <Group grow align="flex-start">
          <TextInput label={t("targets.baseUrl")} value={baseUrl} error={errors.baseUrl} onChange={(e) => setBaseUrl(e.currentTarget.value)} data-testid="target-base-url" />
          <TextInput label={t("targets.model")} value={model} error={errors.model} onChange={(e) => setModel(e.currentTarget.value)} data-testid="target-model" />
          <PasswordInput
            label={t("targets.apiKey")}
            description={initial ? t("targets.apiKeyKeep") : t("targets.apiKeyHelp")}
            value={key}
            onChange={(e) => setKey(e.currentTarget.value)}
          />
        </Group>
      )}
      {kind === "http" && (
        <>
          <TextInput label={t("targets.url")} placeholder="http://127.0.0.1:9000/chat" value={url} error={errors.url} onChange={(e) => setUrl(e.currentTarget.value)} data-testid="target-url" />
          <JsonInput
            label={t("targets.requestTemplate")}
            description={t("targets.requestTemplateHelp", { message: "{{message}}", history: "{{history}}" })}
            placeholder={'{"message": "{{message}}", "history": "{{history}}"}'}
            autosize
            minRows={2}
            maxRows={10}
            value={template}
            onChange={setTemplate}
            error={errors.template}
            data-testid="target-template"
          />
          <TextInput
            label={t("targets.responsePath")}
            description={t("targets.responsePathHelp")}
            placeholder="$.reply"
            value={responsePath}
            onChange={(e) => setResponsePath(e.currentTarget.value)}
            data-testid="target-response-path"
          />
        </>
      )}
      <NumberInput
        w={260}
        label={t("targets.concurrency")}
        description={t("targets.concurrencyHelp", { min: LIMITS.concurrency.min, max: num(LIMITS.concurrency.max) })}
        value={concurrency}
        clampBehavior="none"
        allowDecimal={false}
        error={errors.concurrency}
        onChange={setConcurrency}
        data-testid="target-concurrency"
      />
      <ErrorAlert error={error} onClose={() => setError(null)} />
      <Group gap="xs">
        <Button w="fit-content" onClick={() => void submit()} loading={busy} data-testid="target-submit">
          {initial ? t("common.save") : t("common.create")}
        </Button>
        {onCancel && (
          <Button variant="default" onClick={onCancel}>
            {t("common.cancel")}
          </Button>
        )}
      </Group>
    </Stack>
  );
}

export function TargetsPage() {
  const { t } = useTranslation();
  const [showArchived, setShowArchived] = useState(false);
  const { data, error, reload } = useLoad<Target[]>(() => (showArchived ? api.listAllTargets() : api.listTargets()), [showArchived]);
  const [probes, setProbes] = useState<Record<string, TargetProbe | "testing">>({});
  const [actionError, setActionError] = useState<ApiError | null>(null);
  const [editing, setEditing] = useState<Target | null>(null);
  const [deleting, setDeleting] = useState<Target | null>(null);
  const [notice, setNotice] = useState<{ text: string; color: string; probe?: TargetProbe } | null>(null);
  const mayChange = useMayChange();

  const test = async (id: string) => {
    setProbes((p) => ({ ...p, [id]: "testing" }));
    try {
      const r = await api.testTarget(id);
      setProbes((p) => ({ ...p, [id]: r }));
    } catch (e) {
      setProbes((p) => {
        const { [id]: _, ...rest } = p;
        return rest;
      });
      setActionError(asApiError(e));
    }
  };

  const remove = async (target: Target) => {
    setDeleting(null);
    try {
      const r = await api.deleteTarget(target.id);
      setNotice({ text: r.outcome === "archived" ? t("targets.archivedNotice", { name: target.name }) : t("targets.deletedNotice", { name: target.name }), color: "teal" });
      reload();
    } catch (e) {
      setActionError(asApiError(e));
    }
  };

  const kindLabel = (k: Kind) => t(`targets.${k}`);

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t("targets.title")}</Title>
        <Switch label={t("targets.showArchived")} checked={showArchived} onChange={(e) => setShowArchived(e.currentTarget.checked)} data-testid="targets-show-archived" />
      </Group>
      <ErrorAlert error={error ?? actionError} onClose={() => setActionError(null)} />
      {notice && (
        <Alert color={notice.color} withCloseButton onClose={() => setNotice(null)} data-testid="target-notice">
          <Text size="sm">{notice.text}</Text>
          {notice.probe && <ProbeResult probe={notice.probe} />}
        </Alert>
      )}
      {data && data.length === 0 && <Text c="dimmed">{t("targets.empty")}</Text>}
      {data && data.length > 0 && (
        <Table data-testid="target-table" layout="fixed">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w="26%">{t("targets.name")}</Table.Th>
              <Table.Th w="16%">{t("targets.kind")}</Table.Th>
              <Table.Th>{t("targets.endpoint")}</Table.Th>
              <Table.Th w={330} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.map((target) => {
              const probe = probes[target.id];
              return (
                <Fragment key={target.id}>
                  <Table.Tr data-testid="target-row">
                    <Table.Td>
                      <Text size="sm" style={{ overflowWrap: "anywhere" }}>
                        {target.name}
                      </Text>
                      {target.archived_at && (
                        <Badge color="gray" variant="light" size="sm" data-testid="target-archived">
                          {t("targets.archived", { at: when(target.archived_at) })}
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Badge variant="light" style={{ maxWidth: "100%", height: "auto", whiteSpace: "normal" }}>
                        {kindLabel(target.channel.kind)}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Text size="sm" ff="monospace" style={{ overflowWrap: "anywhere" }}>
                        {endpoint(t, target.channel)}
                      </Text>
                    </Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="wrap" justify="flex-end">
                        {mayChange && (
                          <Button size="xs" variant="light" loading={probe === "testing"} onClick={() => void test(target.id)} data-testid="target-test">
                            {t("targets.test")}
                          </Button>
                        )}
                        {mayChange && !target.archived_at && (
                          <>
                            <Button size="xs" variant="default" onClick={() => setEditing(target)} data-testid="target-edit">
                              {t("targets.edit")}
                            </Button>
                            <Button size="xs" variant="subtle" color="red" onClick={() => setDeleting(target)} data-testid="target-delete">
                              {t("targets.delete")}
                            </Button>
                          </>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                  {probe && probe !== "testing" && (
                    <Table.Tr data-testid="target-probe-row">
                      <Table.Td colSpan={4} pt={0}>
                        <ProbeResult probe={probe} />
                      </Table.Td>
                    </Table.Tr>
                  )}
                </Fragment>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      {mayChange && (
        <Card withBorder data-testid="new-target">
          <Title order={4} mb="sm">
            {t("targets.new")}
          </Title>
          <TargetForm
            onSaved={(created, probe) => {
              if (probe && !probe.ok) setNotice({ text: t("targets.createdProbeFailed", { name: created.name }), color: "yellow", probe });
              else setNotice({ text: t("targets.created", { name: created.name }), color: "teal", probe: probe ?? undefined });
              if (probe) setProbes((p) => ({ ...p, [created.id]: probe }));
              reload();
            }}
          />
        </Card>
      )}
      {editing && (
        <Modal opened onClose={() => setEditing(null)} title={t("targets.editTitle", { name: editing.name })} size="lg" data-testid="target-edit-modal">
          <TargetForm
            initial={editing}
            onCancel={() => setEditing(null)}
            onSaved={(saved) => {
              setEditing(null);
              setNotice({ text: t("targets.saved", { name: saved.name }), color: "teal" });
              reload();
            }}
          />
        </Modal>
      )}
      <Modal opened={deleting !== null} onClose={() => setDeleting(null)} title={t("targets.deleteTitle")} centered>
        <Text size="sm">{t("targets.deleteBody", { name: deleting?.name ?? "" })}</Text>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => setDeleting(null)}>
            {t("common.cancel")}
          </Button>
          <Button color="red" onClick={() => deleting && void remove(deleting)} data-testid="target-delete-confirm">
            {t("targets.delete")}
          </Button>
        </Group>
      </Modal>
    </Stack>
  );
}
