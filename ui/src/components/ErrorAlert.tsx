import { Alert, Text } from "@mantine/core";
import { useTranslation } from "react-i18next";
import type { ApiError } from "../api";
import { useEngineText } from "../i18n/engine";

/** A backend error with its suggestion; text only, never markup. */
export function ErrorAlert({ error, onClose }: { error: ApiError | null; onClose?: () => void }) {
  const { t } = useTranslation();
  const tx = useEngineText();
  if (!error) return null;
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
    >
      <Text size="sm">
        {forbidden ? t("error.FORBIDDEN.sentence") : message}{" "}
        <Text span c="dimmed" size="xs">({error.code})</Text>
      </Text>
      {suggestion && (
        <Text size="sm" mt={4}>
          {t("error.suggestion")}: {suggestion}
        </Text>
      )}
    </Alert>
  );
}
