import { Alert, Button, Code, Modal, Stack, Text } from "@mantine/core";
import { use, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import type { DocumentText } from "../api";
import { num } from "./format";
import { NestedModal } from "./nested";

/** A button that opens the text of the document a step created or changed in the run's workspace. */
export function StepDocument({ document, n, tool }: { document: DocumentText; n: number; tool: string }) {
  const { t } = useTranslation();
  const [opened, setOpened] = useState(false);
  const nested = use(NestedModal);
  useEffect(() => {
    nested(opened);
    return () => nested(false);
  }, [nested, opened]);
  return (
    <>
      <Button
        variant="light"
        size="compact-sm"
        mt={6}
        onClick={() => setOpened(true)}
        data-testid="step-document-open"
        styles={{ root: { height: "auto", minHeight: 26, paddingBlock: 3 }, label: { whiteSpace: "normal", overflowWrap: "anywhere", textAlign: "left" } }}
      >
        {t("steps.openDocument", { path: document.path })}
      </Button>
      <Modal
        opened={opened}
        onClose={() => setOpened(false)}
        title={t("steps.documentTitle", { path: document.path })}
        size="xl"
        closeButtonProps={{ "aria-label": t("common.close") }}
        data-testid="step-document"
      >
        <Stack gap="xs">
          <Text size="xs" c="dimmed">
            {t("steps.documentOf", { n: num(n), tool })}
          </Text>
          {document.truncated && (
            <Alert color="yellow" variant="light" p="xs" data-testid="step-document-truncated">
              <Text size="sm">{t("steps.truncated")}</Text>
            </Alert>
          )}
          <Code block data-testid="step-document-text" style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>
            {document.text}
          </Code>
        </Stack>
      </Modal>
    </>
  );
}
