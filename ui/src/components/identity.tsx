import { Badge, Button, Group, Text, Tooltip } from "@mantine/core";
import { createContext, useContext } from "react";
import { useTranslation } from "react-i18next";
import { api, apiKey, type Identity } from "../api";

/** Who the user is where the UI works; `null` until the backend said. */
export const IdentityContext = createContext<Identity | null>(null);

/**
 * Whether the user may change anything: false for a viewer key, whose
 * actions are hidden (the server refuses them anyway). True when the
 * backend could not say: the server still decides.
 */
export function useMayChange(): boolean {
  return useContext(IdentityContext)?.may_change ?? true;
}

/** The header's note of where the UI works and as whom. */
export function WhoBadge() {
  const { t } = useTranslation();
  const identity = useContext(IdentityContext);
  const server = api.mode === "server" ? serverHost() : null;
  return (
    <Group gap={6} wrap="nowrap" data-testid="who">
      {api.mode === "desktop" && (
        <Tooltip label={t("who.localHint")}>
          <Badge variant="light" color="gray" data-testid="who-where">
            {t("who.local")}
          </Badge>
        </Tooltip>
      )}
      {server && (
        <Tooltip label={t("who.serverHint")}>
          <Badge variant="light" color="indigo" data-testid="who-where">
            {t("who.server", { host: server })}
          </Badge>
        </Tooltip>
      )}
      {identity && api.mode !== "desktop" && (
        <Text size="sm" c="dimmed" visibleFrom="sm" data-testid="who-name">
          {t("who.as", { name: identity.name, role: t(`who.role_${identity.role}`) })}
        </Text>
      )}
      {identity && !identity.may_change && (
        <Tooltip label={t("who.readOnlyHint")} multiline w={260}>
          <Badge color="orange" variant="filled" data-testid="who-read-only">
            {t("who.readOnly")}
          </Badge>
        </Tooltip>
      )}
      {apiKey.needed() && apiKey.given() && (
        <Button
          size="compact-xs"
          variant="subtle"
          color="gray"
          onClick={() => {
            apiKey.forget();
            window.location.reload();
          }}
          data-testid="sign-out"
        >
          {t("who.signOut")}
        </Button>
      )}
    </Group>
  );
}

function serverHost(): string | null {
  if (!api.server) return null;
  try {
    return new URL(api.server.url).host;
  } catch {
    return api.server.url;
  }
}
