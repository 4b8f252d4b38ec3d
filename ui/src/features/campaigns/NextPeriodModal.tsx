import { Button, Group, List, Modal, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type Campaign } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { num, when } from "../../components/format";
import { useLoad } from "../../components/useLoad";
import { useUiLanguage } from "../../i18n/engine";

/**
 * Asks before starting the next period, says what it will start (as the
 * engine plans it: the regression scenarios drafted since are added), and
 * lets the period be named.
 */
export function NextPeriodModal({
  campaign,
  onClose,
  onStarted,
}: {
  campaign: Campaign;
  onClose: () => void;
  onStarted: (next: Campaign) => void;
}) {
  const { t } = useTranslation();
  const lang = useUiLanguage();
  const [name, setName] = useState(() => t("next.defaultName", { name: campaign.name }));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const plan = useLoad(() => api.nextPeriodPlan(campaign.id), [campaign.id]);
  const personas = (campaign.seed_set.personas ?? []).length;
  const goals = (campaign.seed_set.goals ?? []).length;
  const empty = name.trim() === "";

  const confirm = async () => {
    setBusy(true);
    try {
      onStarted(await api.nextPeriod(campaign.id, { name: name.trim() }, lang));
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal opened onClose={onClose} title={t("next.title")} centered size="lg">
      <Stack data-testid="next-period-modal">
        <Text size="sm">{t("next.intro")}</Text>
        {plan.error && <ErrorAlert error={plan.error} />}
        {plan.data && (
          <List size="sm" spacing={4}>
            <List.Item data-testid="next-period-window">
              {t("next.window", { start: when(plan.data.window_start), end: when(plan.data.window_end) })}
            </List.Item>
            <List.Item data-testid="next-period-runs">
              {t("next.runs", { count: plan.data.runs, n: num(plan.data.runs) })}
              {plan.data.added.length > 0 && (
                <Text size="sm" c="dimmed" data-testid="next-period-added">
                  {t("next.added", { count: plan.data.added.length, n: num(plan.data.added.length) })}{" "}
                  {plan.data.added.map((s) => s.title).join(t("next.listSeparator"))}
                </Text>
              )}
            </List.Item>
            {personas > 0 && goals > 0 && (
              <List.Item>{t("next.seeds", { personas: num(personas), goals: num(goals) })}</List.Item>
            )}
          </List>
        )}
        <TextInput
          label={t("next.name")}
          value={name}
          onChange={(e) => setName(e.currentTarget.value)}
          error={empty ? t("next.nameRequired") : null}
          maxLength={200}
          data-testid="next-period-name"
        />
        <ErrorAlert error={error} onClose={() => setError(null)} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            {t("common.cancel")}
          </Button>
          <Button onClick={() => void confirm()} loading={busy} disabled={empty || !plan.data} data-testid="next-period-confirm">
            {t("next.confirm")}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
