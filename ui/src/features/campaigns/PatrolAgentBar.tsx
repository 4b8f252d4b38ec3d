import { Badge, Button, Group, Text } from "@mantine/core";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, type ApiError, type PatrolStatus } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { useMayChange } from "../../components/identity";
import { when } from "../../components/format";
import { useLoad } from "../../components/useLoad";

/** The resident patrol agent at a glance: state, wake-ups, pause/resume. */
export function PatrolAgentBar() {
  const { t } = useTranslation();
  const loaded = useLoad(() => api.patrolStatus(), [], true);
  const [status, setStatus] = useState<PatrolStatus | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const mayChange = useMayChange();
  // The answer of a pause/resume shows until the next refresh arrives.
  useEffect(() => {
    setStatus(null);
  }, [loaded.data]);
  const s = status ?? loaded.data;
  if (!s) return <ErrorAlert error={loaded.error} />;

  const toggle = async () => {
    setBusy(true);
    try {
      setStatus(s.paused ? await api.resumePatrol() : await api.pausePatrol());
      setError(null);
      loaded.reload();
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  const state = !s.running ? "off" : s.paused ? "paused" : "running";
  const color = state === "running" ? "green" : state === "paused" ? "yellow" : "gray";
  return (
    <>
      <Group gap="sm" data-testid="patrol-agent" data-state={state}>
        <Text size="sm" fw={500}>
          {t("patrolAgent.title")}
        </Text>
        <Badge color={color} variant="light" data-testid="patrol-state">
          {t(`patrolAgent.${state}`)}
        </Badge>
        {s.running && (
          <>
            <Text size="xs" c="dimmed">
              {t("patrolAgent.every", { minutes: s.interval_minutes })}
            </Text>
            <Text size="xs" c="dimmed">
              {t("patrolAgent.lastWake")}: {when(s.last_wake_at)}
            </Text>
            <Text size="xs" c="dimmed">
              {t("patrolAgent.nextWake")}: {when(s.next_wake_at)}
            </Text>
            {mayChange && (
              <Button size="compact-sm" variant="light" loading={busy} onClick={() => void toggle()} data-testid="patrol-toggle">
                {s.paused ? t("patrolAgent.resume") : t("patrolAgent.pause")}
              </Button>
            )}
          </>
        )}
      </Group>
      <ErrorAlert error={error} onClose={() => setError(null)} />
    </>
  );
}
