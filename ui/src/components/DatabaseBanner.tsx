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
 * A read-only database (a read-only data folder) is said once known, from
 * the first health check or the first refused write. It stays in view
 * under the header when the page scrolls.
 */
export function DatabaseBanner() {
  const { t } = useTranslation();
  const state = useDatabaseState();
  const down = state === "unavailable";

  useEffect(() => {
    void api.checkDatabase();
  }, []);

  useEffect(() => {
    if (!down) return undefined;
    const timer = window.setInterval(() => void api.checkDatabase(), HEALTH_POLL_MS);
    return () => window.clearInterval(timer);
  }, [down]);

  if (state === "up") return null;
  const [title, body] = down ? ["database.unavailableTitle", "database.unavailableBody"] : ["database.readOnlyTitle", "database.readOnlyBody"];
  return (
    <Box pos="sticky" top="var(--app-shell-header-offset, 0rem)" bg="var(--mantine-color-body)" pb="md" style={{ zIndex: 2 }}>
      <Alert color={down ? "orange" : "yellow"} variant="light" title={t(title)} data-testid="database-banner" data-state={state}>
        <Text size="sm">{t(body)}</Text>
      </Alert>
    </Box>
  );
}
