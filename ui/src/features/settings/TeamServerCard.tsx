import { Alert, Badge, Button, Card, Group, PasswordInput, Stack, Text, TextInput, Title } from "@mantine/core";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { api, asApiError, desktopConnection, type ApiError } from "../../api";
import { ErrorAlert } from "../../components/ErrorAlert";
import { CodeSpans } from "../../components/CodeSpans";

/**
 * The desktop app's choice: its own database on this machine, or a team
 * server (URL and key; the key goes to the OS keychain). The window reloads
 * into the new choice.
 */
export function TeamServerCard() {
  const { t } = useTranslation();
  const [url, setUrl] = useState(api.server?.url ?? "");
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  if (!desktopConnection) return null;
  const connection = desktopConnection;
  const server = api.server;

  const connect = async () => {
    setBusy(true);
    try {
      await connection.connect(url.trim(), key.trim());
      window.location.reload();
    } catch (e) {
      setError(asApiError(e));
      setBusy(false);
    }
  };
  const disconnect = async () => {
    setBusy(true);
    try {
      await connection.disconnect();
      window.location.reload();
    } catch (e) {
      setError(asApiError(e));
      setBusy(false);
    }
  };

  return (
    <Card withBorder data-testid="team-server">
      <Title order={4}>{t("teamServer.title")}</Title>
      <Text size="xs" c="dimmed" mb="sm">
        <CodeSpans text={t("teamServer.help")} />
      </Text>
      {server ? (
        <Alert color="indigo" mb="sm" data-testid="team-server-connected">
          <Group gap="xs">
            <Text size="sm">{t("teamServer.connected", { url: server.url })}</Text>
            <Badge variant="light">{t("who.as", { name: server.identity.name, role: t(`who.role_${server.identity.role}`) })}</Badge>
          </Group>
        </Alert>
      ) : (
        <Text size="sm" mb="sm" data-testid="team-server-local">
          {t("teamServer.local")}
        </Text>
      )}
      <Stack gap="xs">
        <TextInput
          label={t("teamServer.url")}
          placeholder="http://10.0.0.5:8787"
          value={url}
          onChange={(e) => setUrl(e.currentTarget.value)}
          data-testid="team-server-url"
        />
        <PasswordInput
          label={t("teamServer.key")}
          description={<CodeSpans text={t("teamServer.keyHelp")} />}
          value={key}
          onChange={(e) => setKey(e.currentTarget.value)}
          data-testid="team-server-key"
        />
        <ErrorAlert error={error} onClose={() => setError(null)} />
        <Group gap="xs">
          <Button onClick={() => void connect()} loading={busy} disabled={!url.trim() || !key.trim()} data-testid="team-server-connect">
            {server ? t("teamServer.reconnect") : t("teamServer.connect")}
          </Button>
          {server && (
            <Button variant="default" onClick={() => void disconnect()} loading={busy} data-testid="team-server-disconnect">
              {t("teamServer.disconnect")}
            </Button>
          )}
        </Group>
      </Stack>
    </Card>
  );
}
