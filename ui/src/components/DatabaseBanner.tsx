import { Alert, Box, Text } from "@mantine/core";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { api } from "../api";
import { useDatabaseState } from "./useDatabase";

/** How often the health check is asked while the database is down. */
const HEALTH_POLL_MS = 3000;

/**
 * Says at the top of every page that the database cannot be reached, while
 * a call answered so; meanwhile asks the health check until the database
 * answers, then goes away (and the views that could not load load again).
 * It stays in view under the header when the page scrolls.
 */
export function DatabaseBanner() {
  const { t } = useTranslation();
  const down = useDatabaseState() === "unavailable";

  useEffect(() => {
    if (!down) return undefined;
    const timer = window.setInterval(() => void api.checkDatabase(), HEALTH_POLL_MS);
    return () => window.clearInterval(timer);
  }, [down]);

  if (!down) return null;
  return (
    <Box pos="sticky" top="var(--app-shell-header-offset, 0rem)" bg="var(--mantine-color-body)" pb="md" style={{ zIndex: 2 }}>
      <Alert color="orange" variant="light" title={t("database.unavailableTitle")} data-testid="database-banner">
        <Text size="sm">{t("database.unavailableBody")}</Text>
      </Alert>
    </Box>
  );
}
