import { Alert, Button, Checkbox, FileButton, Group, List, Modal, Select, Stack, Text } from "@mantine/core";
import { useState, type ComponentProps } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type ImportSummary, type Target } from "../../api";
import { CodeSpans } from "../../components/CodeSpans";
import { ErrorAlert } from "../../components/ErrorAlert";
import { num } from "../../components/format";
import { WhyDisabled } from "../../components/WhyDisabled";
import { useEngineText } from "../../i18n/engine";

/** The kinds of personal data the built-in redaction replaces. */
const KINDS = ["email", "phone", "id"];

/** What an import kept, replaced and skipped (each skipped line by its number). */
export function ImportSummaryView({ summary, redacted }: { summary: ImportSummary; redacted: boolean }) {
  const { t } = useTranslation();
  const tx = useEngineText();
  const replaced = Object.entries(summary.redacted).filter(([, n]) => n > 0);
  const kind = (k: string) => (KINDS.includes(k) ? t(`production.kind_${k}`) : k);
  return (
    <Stack gap="xs" data-testid="import-summary">
      <Alert color={summary.conversations > 0 ? "teal" : "orange"} variant="light" data-testid="import-kept">
        {t("production.kept", {
          count: summary.conversations,
          conversations: num(summary.conversations),
          turns: num(summary.user_turns),
          messages: num(summary.messages),
          spans: num(summary.spans),
        })}
      </Alert>
      <Text size="sm" fw={500}>
        {t("production.redactedTitle")}
      </Text>
      {replaced.length > 0 ? (
        <List size="sm" data-testid="import-redacted">
          {replaced.map(([k, n]) => (
            <List.Item key={k}>{t("production.redactedKind", { kind: kind(k), n: num(n) })}</List.Item>
          ))}
        </List>
      ) : (
        <Text size="sm" c="dimmed" data-testid="import-redacted">
          {redacted ? t("production.redactedNone") : t("production.redactedOff")}
        </Text>
      )}
      <Text size="sm" fw={500}>
        {t("production.skippedTitle", { n: num(summary.problems.length) })}
      </Text>
      {summary.problems.length === 0 ? (
        <Text size="sm" c="dimmed">
          {t("production.skippedNone")}
        </Text>
      ) : (
        <List size="sm" data-testid="import-problems">
          {summary.problems.map((p, i) => (
            <List.Item key={i} data-testid="import-problem" data-line={p.line} style={{ overflowWrap: "anywhere" }}>
              <CodeSpans text={tx(p.msg)} />
            </List.Item>
          ))}
        </List>
      )}
    </Stack>
  );
}

/**
 * Imports an OTLP/JSON file (a collector's file exporter output) as the
 * production of a target, personal data replaced unless the user says
 * otherwise; then says what was kept, replaced and skipped.
 */
export function ImportModal({
  targets,
  defaultTarget,
  onClose,
  onImported,
}: {
  targets: Target[];
  defaultTarget: string | null;
  onClose: () => void;
  onImported: () => void;
}) {
  const { t } = useTranslation();
  const [file, setFile] = useState<File | null>(null);
  const [targetId, setTargetId] = useState<string | null>(defaultTarget ?? targets[0]?.id ?? null);
  const [redact, setRedact] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [summary, setSummary] = useState<{ summary: ImportSummary; redacted: boolean } | null>(null);

  const submit = async () => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const text = await file.text();
      setSummary({ summary: await api.importTraces(text, targetId, redact, file.name), redacted: redact });
      onImported();
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };
  const again = () => {
    setSummary(null);
    setFile(null);
  };

  return (
    <Modal opened onClose={onClose} title={t("production.importTitle")} size="lg" centered data-testid="import-modal">
      <Stack>
        {summary ? (
          <>
            <Text size="sm" style={{ overflowWrap: "anywhere" }}>
              {t("production.importedFrom", { file: file?.name ?? "" })}
            </Text>
            <ImportSummaryView summary={summary.summary} redacted={summary.redacted} />
            <Group justify="flex-end">
              <Button variant="default" onClick={again} data-testid="import-again">
                {t("production.importAnother")}
              </Button>
              <Button onClick={onClose} data-testid="import-close">
                {t("common.close")}
              </Button>
            </Group>
          </>
        ) : (
          <>
            <Text size="sm">{t("production.importHelp")}</Text>
            <Group gap="sm" wrap="nowrap">
              <FileButton
                onChange={setFile}
                accept=".json,.jsonl,.ndjson,.txt,application/json,application/x-ndjson,text/plain"
                inputProps={{ "data-testid": "import-file-input" } as ComponentProps<"input">}
              >
                {(p) => (
                  <Button variant="light" {...p} data-testid="import-choose">
                    {t("production.chooseFile")}
                  </Button>
                )}
              </FileButton>
              <Text size="sm" c={file ? undefined : "dimmed"} style={{ overflowWrap: "anywhere" }} data-testid="import-file-name">
                {file ? t("production.fileChosen", { file: file.name, size: num(Math.ceil(file.size / 1024)) }) : t("production.noFile")}
              </Text>
            </Group>
            <Select
              label={t("production.target")}
              description={t("production.targetHelp")}
              placeholder={t("production.noTarget")}
              data={targets.map((x) => ({ value: x.id, label: x.name }))}
              value={targetId}
              onChange={setTargetId}
              clearable
              data-testid="import-target"
            />
            <Checkbox
              label={t("production.redact")}
              description={t("production.redactHelp")}
              checked={redact}
              onChange={(e) => setRedact(e.currentTarget.checked)}
              data-testid="import-redact"
            />
            <ErrorAlert error={error} onClose={() => setError(null)} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {t("common.cancel")}
              </Button>
              <WhyDisabled reason={file ? null : t("production.chooseFirst")} testId="import-disabled-reason">
                <Button onClick={() => void submit()} loading={busy} disabled={!file} data-testid="import-submit">
                  {t("production.import")}
                </Button>
              </WhyDisabled>
            </Group>
          </>
        )}
      </Stack>
    </Modal>
  );
}
