import { Button, Code, Group, Modal, Stack, Text, Textarea, TextInput } from "@mantine/core";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type ScenarioSummary } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { num } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { useUiLanguage } from "../../i18n/engine";

/** A drafted pack file: its pack, its file name within the pack, its text. */
export type PackDraft = { pack: string; file_name: string; yaml: string };

/**
 * A drafted scenario (from a finding, or from a production conversation):
 * its pack file to review and edit, saved among the user's packs once it
 * loads. `lineage` says where the draft comes from, `saved` what saving
 * did (the pack and the ids it now holds).
 */
export function PackDraftModal<D extends PackDraft>({
  title,
  load,
  deps,
  lineage,
  explain,
  saved: savedText,
  onClose,
}: {
  title: string;
  load: () => Promise<D>;
  deps: unknown[];
  lineage: (draft: D) => ReactNode;
  explain: string;
  saved: (pack: string, ids: string) => string;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const draft = useLoad(load, deps);
  const [edited, setEdited] = useState<{ yaml: string; pack: string; file: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState<ScenarioSummary[] | null>(null);
  const d = draft.data;
  // What saving did is shown beside the save button and scrolled into view: a
  // long draft puts the button below the fold, and an unseen error is no answer.
  const outcome = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (error || saved) outcome.current?.scrollIntoView({ block: "nearest", behavior: "auto" });
  }, [error, saved]);
  const form = edited ?? (d ? { yaml: d.yaml, pack: d.pack, file: d.file_name } : null);

  const save = async () => {
    if (!form) return;
    setBusy(true);
    setError(null);
    try {
      setSaved(await api.saveScenarioFile({ pack: form.pack.trim(), file_name: form.file.trim(), yaml: form.yaml }));
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened onClose={onClose} title={title} size="xl" centered>
      <Stack data-testid="regression-modal">
        <ErrorAlert error={draft.error} />
        {d && form && (
          <>
            <Text size="sm" data-testid="regression-lineage" style={{ overflowWrap: "anywhere" }}>
              {lineage(d)}
            </Text>
            <Text size="xs" c="dimmed">
              {explain}
            </Text>
            <Group grow>
              <TextInput
                label={t("regression.pack")}
                value={form.pack}
                onChange={(e) => setEdited({ ...form, pack: e.currentTarget.value })}
                data-testid="regression-pack"
              />
              <TextInput
                label={t("regression.file")}
                value={form.file}
                onChange={(e) => setEdited({ ...form, file: e.currentTarget.value })}
                data-testid="regression-file"
              />
            </Group>
            <Textarea
              label={t("regression.yaml")}
              value={form.yaml}
              onChange={(e) => setEdited({ ...form, yaml: e.currentTarget.value })}
              autosize
              minRows={10}
              maxRows={22}
              spellCheck={false}
              styles={{ input: { fontFamily: "var(--mantine-font-family-monospace)", fontSize: 12 } }}
              data-testid="regression-yaml"
            />
            <Stack gap="xs" ref={outcome} data-testid="regression-outcome">
              <ErrorAlert error={error} onClose={() => setError(null)} />
              {saved && (
                <Text size="sm" c="green" data-testid="regression-saved">
                  {savedText(form.pack.trim(), saved.map((s) => s.id).join(", "))} <Code>{saved[0]?.title}</Code>
                </Text>
              )}
              <Group justify="flex-end">
                <Button variant="default" onClick={onClose}>
                  {saved ? t("common.close") : t("common.cancel")}
                </Button>
                <Button onClick={() => void save()} loading={busy} data-testid="regression-save">
                  {t("regression.save")}
                </Button>
              </Group>
            </Stack>
          </>
        )}
      </Stack>
    </Modal>
  );
}

/**
 * A finding becomes a regression scenario: the drafted pack file (the
 * user's turns up to the finding, the check that guards against it, its
 * lineage).
 */
export function RegressionModal({ sessionId, turn, onClose }: { sessionId: string; turn: number | null; onClose: () => void }) {
  const { t } = useTranslation();
  const lang = useUiLanguage();
  return (
    <PackDraftModal
      title={t("regression.title")}
      load={() => api.draftRegression(sessionId, turn, null, lang)}
      deps={[sessionId, turn, lang]}
      lineage={(d) => t("regression.lineage", { turn: num(d.lineage.turn), finding: d.lineage.finding })}
      explain={t("regression.explain")}
      saved={(pack, ids) => t("regression.saved", { pack, ids })}
      onClose={onClose}
    />
  );
}
