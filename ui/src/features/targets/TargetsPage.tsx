import { Badge, Button, Card, Group, NumberInput, PasswordInput, SegmentedControl, Stack, Table, Text, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type ChannelConfig, type Target, type TargetProbe } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useLoad } from "../../components/useLoad";

function endpoint(c: ChannelConfig): string {
  switch (c.kind) {
    case "openai":
      return `${c.model} @ ${c.base_url}`;
    case "http":
      return c.url;
    case "builtin":
      return c.agent;
  }
}

function NewTarget({ onCreated }: { onCreated: (t: Target) => void }) {
  const { t } = useTranslation();
  const [kind, setKind] = useState<"openai" | "http" | "builtin">("openai");
  const [name, setName] = useState("");
  const [baseUrl, setBaseUrl] = useState("http://127.0.0.1:8000/v1");
  const [model, setModel] = useState("");
  const [key, setKey] = useState("");
  const [url, setUrl] = useState("");
  const [concurrency, setConcurrency] = useState<number | "">(4);
  const [error, setError] = useState<ApiError | null>(null);

  const submit = async () => {
    const channel: ChannelConfig =
      kind === "openai"
        ? { kind: "openai", base_url: baseUrl.trim(), model: model.trim(), api_key: key || undefined, headers: [] }
        : kind === "http"
          ? { kind: "http", url: url.trim(), headers: [] }
          : { kind: "builtin", agent: "demo" };
    try {
      const created = await api.createTarget({
        name,
        channel,
        concurrency: typeof concurrency === "number" ? concurrency : null,
        rate_per_second: null,
        timeout_ms: null,
        max_retries: null,
        price_in_per_mtok: null,
        price_out_per_mtok: null,
      });
      setError(null);
      setName("");
      setKey("");
      onCreated(created);
    } catch (e) {
      setError(asApiError(e));
    }
  };

  return (
    <Card withBorder data-testid="new-target">
      <Title order={4} mb="sm">
        {t("targets.new")}
      </Title>
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
        <TextInput label={t("targets.name")} value={name} onChange={(e) => setName(e.currentTarget.value)} data-testid="target-name" />
        {kind === "openai" && (
          <Group grow>
            <TextInput label={t("targets.baseUrl")} value={baseUrl} onChange={(e) => setBaseUrl(e.currentTarget.value)} />
            <TextInput label={t("targets.model")} value={model} onChange={(e) => setModel(e.currentTarget.value)} />
            <PasswordInput label={t("targets.apiKey")} description={t("targets.apiKeyHelp")} value={key} onChange={(e) => setKey(e.currentTarget.value)} />
          </Group>
        )}
        {kind === "http" && <TextInput label={t("targets.url")} value={url} onChange={(e) => setUrl(e.currentTarget.value)} />}
        <NumberInput w={200} label="Concurrency" value={concurrency} min={1} max={1024} onChange={(v) => setConcurrency(typeof v === "number" ? v : "")} />
        <ErrorAlert error={error} onClose={() => setError(null)} />
        <Button w="fit-content" onClick={() => void submit()} data-testid="target-submit">
          {t("common.create")}
        </Button>
      </Stack>
    </Card>
  );
}

export function TargetsPage() {
  const { t } = useTranslation();
  const { data, error, reload } = useLoad(() => api.listTargets(), []);
  const [probes, setProbes] = useState<Record<string, TargetProbe | "testing">>({});
  const [probeError, setProbeError] = useState<ApiError | null>(null);

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
      setProbeError(asApiError(e));
    }
  };

  return (
    <Stack>
      <Title order={2}>{t("targets.title")}</Title>
      <ErrorAlert error={error ?? probeError} onClose={() => setProbeError(null)} />
      {data && data.length === 0 && <Text c="dimmed">{t("targets.empty")}</Text>}
      {data && data.length > 0 && (
        <Table data-testid="target-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>{t("targets.name")}</Table.Th>
              <Table.Th>{t("targets.kind")}</Table.Th>
              <Table.Th>{t("targets.endpoint")}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.map((target) => {
              const probe = probes[target.id];
              return (
                <Table.Tr key={target.id} data-testid="target-row">
                  <Table.Td>{target.name}</Table.Td>
                  <Table.Td>
                    <Badge variant="light">{target.channel.kind}</Badge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" ff="monospace">
                      {endpoint(target.channel)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      <Button size="xs" variant="light" loading={probe === "testing"} onClick={() => void test(target.id)} data-testid="target-test">
                        {t("targets.test")}
                      </Button>
                      {probe && probe !== "testing" && (
                        <Text size="xs" c={probe.ok ? "teal" : "red"} data-testid="target-probe">
                          {probe.ok ? t("targets.ok", { ms: probe.latency_ms ?? 0 }) : `${t("targets.failed")}: ${probe.error ?? ""}`}
                        </Text>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      <NewTarget onCreated={() => reload()} />
    </Stack>
  );
}
