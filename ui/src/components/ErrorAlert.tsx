import { Alert, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { ApiError } from "../api";
import { useEngineText } from "../i18n/engine";
import { CodeSpans } from "./CodeSpans";
import { useDatabaseState } from "./useDatabase";

/**
 * A backend error with its suggestion, in the reader's language; text only,
 * never markup. The error's code is for programs (data-code), not people.
 */
export function ErrorAlert({ error, onClose }: { error: ApiError | null; onClose?: () => void }) {
  const { t } = useTranslation();
  const tx = useEngineText();
  const databaseDown = useDatabaseState() === "unavailable";
  if (!error) return null;
  if (error.code === "DATABASE_UNAVAILABLE" && databaseDown) {
    // The banner at the top says why; here, only what it means for this place.
    return (
      <Alert color="gray" title={t("database.waitingTitle")} data-testid="error-alert" data-code={error.code}>
        <Text size="sm">{t("database.waitingBody")}</Text>
      </Alert>
    );
  }
  const message = error.text ? tx(error.text.message) : error.message;
  const suggestion = error.text ? tx(error.text.suggestion) : error.suggestion;
  const forbidden = error.code === "FORBIDDEN";
  return (
    <Alert
      color="red"
      title={forbidden ? t("error.FORBIDDEN.title") : t("error.title")}
      withCloseButton={Boolean(onClose)}
      onClose={onClose}
      data-testid="error-alert"
      data-code={error.code}
    >
      <Text size="sm">{forbidden ? t("error.FORBIDDEN.sentence") : <CodeSpans text={message} />}</Text>
      {suggestion && (
        <Text size="sm" mt={4}>
          {t("error.suggestion")}: <CodeSpans text={suggestion} />
        </Text>
      )}
    </Alert>
  );
}
